// The managed-provider resolver keeps its answers per snapshot, workspace and name, never past the
// expiry of the provider they came from, and never keeps a refusal.
import { randomUUID } from 'node:crypto';
import { createLogger } from '@aigw/runtime';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { integration, provider, TEST_MASTER_KEY } from '../../test/control-plane-entities.js';
import { Snapshot } from '../snapshot/index.js';
import { CredentialStore } from './credentials.js';
import { createManagedResolver } from './managed-provider.js';

const ORG = randomUUID();
const WS = randomUUID();
const INT = randomUUID();
const log = createLogger({ app: 'test', level: 'silent' });

function snapshotWith(expiresAtMs: number) {
  return Snapshot.of(
    [
      integration(INT, ORG, { credentials: { api_key: 'sk-managed' } }),
      provider(randomUUID(), ORG, WS, 'main', { integrationId: INT, expiresAtMs }),
    ],
    1,
  );
}

afterEach(() => {
  vi.useRealTimers();
});

describe('createManagedResolver', () => {
  it('answers a name again from memory for the same snapshot, and afresh for a new one', () => {
    const resolve = createManagedResolver(new CredentialStore(TEST_MASTER_KEY, log));
    const snapshot = snapshotWith(0);
    const first = resolve(snapshot, WS, { provider: '@main', param: 'x-service-provider' });
    expect(first.token).toBe('sk-managed');
    expect(resolve(snapshot, WS, { provider: '@main', param: 'x-service-provider' })).toBe(first);
    const next = resolve(snapshotWith(0), WS, { provider: '@main', param: 'x-service-provider' });
    expect(next).not.toBe(first);
    expect(next.token).toBe('sk-managed');
  });

  it('stops answering from memory when the provider expires, on the same snapshot', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const now = Date.now();
    const resolve = createManagedResolver(new CredentialStore(TEST_MASTER_KEY, log));
    const snapshot = snapshotWith(now + 60_000);
    expect(resolve(snapshot, WS, { provider: '@main', param: 'x-service-provider' }).token).toBe(
      'sk-managed',
    );
    vi.setSystemTime(now + 60_001);
    expect(() => resolve(snapshot, WS, { provider: '@main', param: 'x-service-provider' })).toThrow(
      'provider @main has expired',
    );
  });

  it('keeps no refusal: another workspace is refused every time', () => {
    const resolve = createManagedResolver(new CredentialStore(TEST_MASTER_KEY, log));
    const snapshot = snapshotWith(0);
    for (let i = 0; i < 2; i++) {
      expect(() =>
        resolve(snapshot, randomUUID(), { provider: '@main', param: 'x-service-provider' }),
      ).toThrow('provider @main does not exist in this workspace');
    }
  });
});
