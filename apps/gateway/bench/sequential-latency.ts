// Sequential requests over one keep-alive connection timed with hrtime, for the bench scripts.
import { Agent, request } from 'node:http';
import { chatBody } from './harness.js';

/**
 * Sequential requests over one keep-alive connection, timed with hrtime: autocannon reports whole
 * milliseconds, too coarse for "adds under 1 ms".
 */
export async function sequentialLatency(
  url: string,
  headers: Record<string, string>,
  count: number,
  stream = false,
) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const body = chatBody(stream);
  // JSON: time to the end of the response. Streaming: time to the first body byte (first SSE event).
  const once = () =>
    new Promise<number>((resolve, reject) => {
      const start = process.hrtime.bigint();
      const elapsed = () => Number(process.hrtime.bigint() - start) / 1e6;
      const req = request(
        url,
        {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench', ...headers },
        },
        (res) => {
          let first: number | undefined;
          res.on('data', () => {
            first ??= elapsed();
          });
          res.on('end', () => resolve(stream ? (first ?? elapsed()) : elapsed()));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  for (let i = 0; i < 200; i++) await once();
  const samples: number[] = [];
  for (let i = 0; i < count; i++) samples.push(await once());
  agent.destroy();
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] ?? 0;
  return { p50: at(0.5), p99: at(0.99) };
}
