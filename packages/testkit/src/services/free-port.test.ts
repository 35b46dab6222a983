import { createServer } from 'node:net';
import { expect, it } from 'vitest';
import { ephemeralRange, freePort } from './free-port.js';

it('returns a port that can be bound right away, on all addresses', async () => {
  const port = await freePort();
  expect(port).toBeGreaterThan(1023);
  expect(port).toBeLessThan(65_536);
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '0.0.0.0', resolve);
  });
  await new Promise((resolve) => server.close(resolve));
});

it('stays out of the kernel ephemeral range, where outgoing connections take their ports', async () => {
  const { low, high } = ephemeralRange();
  for (let i = 0; i < 50; i++) {
    const port = await freePort();
    expect(port < low || port > high, `${port} within ${low}-${high}`).toBe(true);
  }
});

it('never hands out the same port twice in one process', async () => {
  const ports = new Set<number>();
  for (let i = 0; i < 100; i++) ports.add(await freePort());
  expect(ports.size).toBe(100);
});
