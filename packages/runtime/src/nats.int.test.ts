import { createServer, type Socket } from 'node:net';
import { waitFor } from '@aigw/testkit';
import { startRestartableNats } from '@aigw/testkit/services';
import { describe, expect, test } from 'vitest';
import { createLogger } from './logger.js';
import { closeNats, connectNats, natsConnected, natsReadiness } from './nats.js';

const log = createLogger({ app: 'nats-test', level: 'silent' });

describe('natsReadiness', () => {
  test('fails at once while the connection is down, even while a reconnect hangs, and passes once it is back', {
    timeout: 60_000,
  }, async () => {
    const server = await startRestartableNats();
    const nc = await connectNats({ url: server.url, name: 'readiness-test', log });
    // Where NATS was, something that accepts connections and never answers (a hung server, a
    // half-open network path): each reconnect attempt waits out nats.js's 20 s connect timeout.
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    try {
      const check = natsReadiness(nc);
      await check();
      await server.stop();
      await waitFor(async () => (natsConnected(nc) ? undefined : true), 'the disconnect status');
      await new Promise<void>((resolve) =>
        silent.listen(Number(new URL(server.url).port), '127.0.0.1', resolve),
      );
      await waitFor(async () => (sockets.size > 0 ? true : undefined), 'a reconnect attempt to hang');
      // A flush would stay pending until that attempt gives up: the check must not wait for it.
      await expect(check()).rejects.toThrow('NATS disconnected (reconnecting)');

      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve, reject) => silent.close((err) => (err ? reject(err) : resolve())));
      await server.start();
      await waitFor(async () => (natsConnected(nc) ? true : undefined), 'the reconnect status', 30_000);
      await check();
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
      await nc.close();
      await server.close();
    }
  });

  test('a closed connection is reported closed', async () => {
    const server = await startRestartableNats();
    try {
      const nc = await connectNats({ url: server.url, name: 'readiness-closed-test', log });
      await nc.close();
      await expect(natsReadiness(nc)()).rejects.toThrow('NATS connection closed');
      expect(natsConnected(nc)).toBe(false);
    } finally {
      await server.close();
    }
  });
});

describe('closeNats', () => {
  test('closes a connection whose server is gone instead of draining it (a drain waits for the reconnect)', {
    timeout: 30_000,
  }, async () => {
    const server = await startRestartableNats();
    try {
      const nc = await connectNats({ url: server.url, name: 'close-test', log });
      await server.stop();
      await waitFor(async () => (natsConnected(nc) ? undefined : true), 'the disconnect status');
      await closeNats(nc);
      expect(nc.isClosed()).toBe(true);
    } finally {
      await server.close();
    }
  });

  test('drains a connection that is up', async () => {
    const server = await startRestartableNats();
    try {
      const nc = await connectNats({ url: server.url, name: 'drain-test', log });
      const received: string[] = [];
      const sub = nc.subscribe('drain.test', {
        callback: (_err, msg) => {
          received.push(msg.string());
        },
      });
      nc.publish('drain.test', 'pending');
      await closeNats(nc);
      expect(nc.isClosed()).toBe(true);
      // Drained: the subscription handled what was in flight before the connection closed.
      expect(received).toEqual(['pending']);
      expect(sub.isClosed()).toBe(true);
    } finally {
      await server.close();
    }
  });
});
