import { startRestartableNats } from '@aigw/testkit/services';
import { describe, expect, test } from 'vitest';
import { createLogger } from './logger.js';
import { connectNatsInBackground } from './nats-background.js';

const log = createLogger({ app: 'nats-background-test', level: 'silent' });

describe('connectNatsInBackground', () => {
  test('with NATS up, the first attempt settles once the set-up ran', async () => {
    const server = await startRestartableNats();
    const steps: string[] = [];
    const nats = connectNatsInBackground({
      url: server.url,
      name: 'background-up-test',
      log,
      setUp: async ({ nc, onStop }) => {
        await nc.flush();
        steps.push('set up');
        onStop('consumer', () => {
          steps.push(`stopped while ${nc.isClosed() ? 'closed' : 'open'}`);
        });
      },
    });
    try {
      await nats.firstAttempt;
      expect(steps).toEqual(['set up']);
      expect(await nats.ready).toBe(true);
      await nats.readiness();
    } finally {
      await nats.stop();
      await server.close();
    }
    // What the set-up started stops before the connection closes.
    expect(steps).toEqual(['set up', 'stopped while open']);
    expect(nats.connection?.isClosed()).toBe(true);
  });

  test('without NATS: settles the first attempt, reports "not connected yet", connects and retries the set-up once NATS answers', {
    timeout: 60_000,
  }, async () => {
    const server = await startRestartableNats();
    await server.stop();
    let attempts = 0;
    const stopped: string[] = [];
    const nats = connectNatsInBackground({
      url: server.url,
      name: 'background-down-test',
      log,
      retryMs: 50,
      setUp: async ({ onStop }) => {
        attempts += 1;
        const attempt = `attempt ${attempts}`;
        // What a failed attempt started stays started, and is stopped with the rest.
        onStop(attempt, () => {
          stopped.push(attempt);
        });
        if (attempt === 'attempt 1') throw new Error('stream not created');
      },
    });
    try {
      await nats.firstAttempt;
      expect(nats.connection).toBeUndefined();
      expect(attempts).toBe(0);
      await expect(nats.readiness()).rejects.toThrow(/^not connected yet/);

      await server.start();
      expect(await nats.ready).toBe(true);
      expect(attempts).toBe(2);
      await nats.readiness();
    } finally {
      await nats.stop();
      await server.close();
    }
    expect(stopped).toEqual(['attempt 2', 'attempt 1']);
  });

  test('a set-up that keeps failing is reported by readiness while connected', {
    timeout: 30_000,
  }, async () => {
    const server = await startRestartableNats();
    const nats = connectNatsInBackground({
      url: server.url,
      name: 'background-failing-test',
      log,
      retryMs: 50,
      setUp: async () => {
        throw new Error('JetStream not enabled');
      },
    });
    try {
      await nats.firstAttempt;
      await expect(nats.readiness()).rejects.toThrow('connected, set-up failed: JetStream not enabled');
    } finally {
      await nats.stop();
      await server.close();
    }
    expect(await nats.ready).toBe(false);
  });

  test('stops while NATS never answered: stop completes, nothing is set up, and it stops dialling', {
    timeout: 30_000,
  }, async () => {
    const server = await startRestartableNats();
    await server.stop();
    let setUps = 0;
    const nats = connectNatsInBackground({
      url: server.url,
      name: 'background-never-test',
      log,
      retryMs: 50,
      setUp: async () => {
        setUps += 1;
      },
    });
    try {
      await nats.firstAttempt;
      await nats.stop();
      // `ready` settles only once the connection loop ended: nothing dials NATS any more.
      expect(await nats.ready).toBe(false);
      expect(setUps).toBe(0);
      expect(nats.connection).toBeUndefined();
    } finally {
      await server.close();
    }
  });
});
