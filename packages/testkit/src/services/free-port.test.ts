import { createServer } from 'node:net';
import { expect, it } from 'vitest';
import { freePort } from './free-port.js';

it('returns a loopback port that can be bound right away', async () => {
  const port = await freePort();
  expect(port).toBeGreaterThan(0);
  expect(port).toBeLessThan(65_536);
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  await new Promise((resolve) => server.close(resolve));
});
