import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { startEnforcementGateway } from '../enforcement-gateway.js';
import { chatBody, startBench } from '../harness.js';
import { startStackEnforcement } from '../stack-enforcement.js';

const bench = await startBench({ events: true });
const stack = await startStackEnforcement(bench.mock.url);
const light = await startEnforcementGateway({ mockUrl: bench.mock.url, natsUrl: bench.nats.url, entry: new URL('../../dist/main.js', import.meta.url).pathname });
const portOf = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').match(/:(\d+)/)?.[1];
const stackRedis = portOf(stack.others.redis?.()[0] ?? -1);
const lightRedis = portOf(light.redisPid ?? -1);
async function monitor(port: string | undefined, url: string, headers: Record<string, string>, name: string) {
  const mon = spawn('redis-cli', ['-p', String(port), 'monitor']);
  let out = '';
  mon.stdout.on('data', (d) => (out += d));
  await new Promise((r) => setTimeout(r, 300));
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: chatBody(false) });
    console.log(name, res.status, JSON.stringify([...res.headers]));
    await res.text();
  }
  await new Promise((r) => setTimeout(r, 300));
  mon.kill();
  console.log(`--- ${name} redis monitor:\n${out.replace(/"[0-9a-f]{40}"/, 'SHA')}`);
}
await monitor(stackRedis, stack.url, stack.headers, 'stack');
await monitor(lightRedis, light.url, light.headers, 'light');
const env = (pid: number) => readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter((l) => !/KEY|TOKEN|SECRET/.test(l)).sort().join('\n');
console.log('--- stack env\n' + env(stack.pid));
console.log('--- light env\n' + env(light.pid ?? -1));
await stack.stop(); await light.stop(); await bench.stop();
