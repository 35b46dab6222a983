// What the shared express stack (request id, metrics, error boundary) costs per request, against
// a bare node:http handler, both over loopback keep-alive.
import { Agent, request } from 'node:http';
import { afterAll, bench, describe } from 'vitest';
import { createHttpApp } from './http-app.js';
import { listen } from './http-server.js';
import { createLogger } from './logger.js';
import { createMetrics } from './metrics.js';

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

const bare = await listen((_req, res) => res.end('{"status":"ok"}'), 0, '127.0.0.1');
const stack = await listen(
  createHttpApp({
    log: createLogger({ app: 'bench', level: 'silent' }),
    metrics: createMetrics('bench'),
    health: { checks: {}, draining: () => false },
  }),
  0,
  '127.0.0.1',
);

afterAll(async () => {
  agent.destroy();
  await Promise.all([bare.close(100), stack.close(100)]);
});

function get(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/healthz', agent }, (res) => {
      res.resume();
      res.on('end', resolve);
    })
      .on('error', reject)
      .end();
  });
}

describe('GET /healthz round trip', () => {
  bench('bare node:http', () => get(bare.port), { time: 2_000 });
  bench('createHttpApp (express + request id + metrics)', () => get(stack.port), { time: 2_000 });
});
