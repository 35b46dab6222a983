import { spawn } from 'node:child_process';
import autocannon from 'autocannon';
import { chatBody, startBench } from '../harness.js';

const stream = process.env.PROFILE_SCENARIO === 'stream';
const bench = await startBench({ events: !process.env.BENCH_NO_EVENTS });
const N = 4000;
async function run(name: string, url: string, headers: Record<string, string>, pid: number | undefined) {
  const body = chatBody(stream);
  const opts = { url, method: 'POST' as const, headers: { 'content-type': 'application/json', authorization: 'Bearer sk', ...headers }, body, connections: 32 };
  await autocannon({ ...opts, amount: 2000 });
  const out = `/tmp/strace-${name}.txt`;
  const st = spawn('strace', ['-f', '-c', '-o', out, '-p', String(pid)], { stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, 500));
  const r = await autocannon({ ...opts, amount: N });
  st.kill('SIGINT');
  await new Promise((r) => st.once('exit', r));
  console.log(name, 'requests', r.requests.total);
}
try {
  await run('bare', `${bench.bare.url}/chat/completions`, {}, bench.bare.pid);
  await run('gateway', `${bench.gateway.url}/v1/chat/completions`, bench.gatewayHeaders, bench.gateway.pid);
} finally {
  await bench.stop();
}
