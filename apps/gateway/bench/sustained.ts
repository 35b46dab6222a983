// Whether the enforcement gateway's cost per request grows under sustained load: 32 connections
// for SUSTAINED_S (default 40) seconds in back-to-back 2 s slices, printing per slice requests/s,
// gateway CPU per request, redis-server CPU per request and the gateway's RSS. ENFORCEMENT_ENTRY runs
// another entry (a compiled dist/main.js runs without tsx).
import { readFileSync } from 'node:fs';
import { startEnforcementGateway } from './enforcement-gateway.js';
import { cpuMicros, load, startBench } from './harness.js';

const seconds = Number(process.env.SUSTAINED_S ?? 40);
const bench = await startBench({ events: true });
const gw = await startEnforcementGateway({
  mockUrl: bench.mock.url,
  natsUrl: bench.nats.url,
  ...(process.env.ENFORCEMENT_ENTRY ? { entry: process.env.ENFORCEMENT_ENTRY } : {}),
});
const rss = (pid: number | undefined) =>
  Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) / 1024;
try {
  const url = `${gw.url}/v1/chat/completions`;
  for (let slice = 0; slice < seconds / 2; slice++) {
    const redis0 = cpuMicros(gw.redisPid);
    const row = await load('enforcement', url, gw.headers, false, 32, 2, {
      proxy: gw.pid,
      nats: bench.nats.pid,
      mock: bench.mock.pid,
    });
    const redis = Math.round((cpuMicros(gw.redisPid) - redis0) / row.total);
    console.log(
      `slice ${slice}: ${row.rps} rps, gateway ${row.cpuPerRequest} µs, redis ${redis} µs, nats ${row.natsCpuPerRequest} µs, mock ${row.mockCpuPerRequest} µs, load ${row.loadCpuPerRequest} µs, rss ${rss(gw.pid).toFixed(0)} MB`,
    );
  }
} finally {
  await gw.stop();
  await bench.stop();
}
