// API key expiry at its boundary: a key stops working at exactly `expires_at`, not a millisecond later.
import { randomUUID } from 'node:crypto';
import { AppError } from '@aigw/runtime';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { apiKey, organisation, workspace } from '../../test/control-plane-entities.js';
import { Snapshot } from '../snapshot/index.js';
import { createAuthenticate } from './authenticate.js';

const ORG = randomUUID();
const WS = randomUUID();
const KEY = `aigw_${randomUUID()}`;
const EXPIRES_AT = Date.UTC(2030, 0, 1);
const snapshot = Snapshot.of(
  [organisation(ORG), workspace(WS, ORG), apiKey(KEY, ORG, WS, { expiresAtMs: EXPIRES_AT })],
  1,
);
const authenticate = createAuthenticate(null);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
});

afterEach(() => {
  vi.useRealTimers();
});

async function codeAt(nowMs: number): Promise<string> {
  vi.setSystemTime(nowMs);
  try {
    await authenticate(snapshot, { 'x-service-api-key': KEY });
    return 'accepted';
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return err.code ?? 'no code';
  }
}

describe('API key expiry', () => {
  it('accepts the key until the millisecond before expires_at, refuses it from expires_at on', async () => {
    expect(await codeAt(EXPIRES_AT - 1)).toBe('accepted');
    expect(await codeAt(EXPIRES_AT)).toBe('api_key_expired');
    expect(await codeAt(EXPIRES_AT + 1)).toBe('api_key_expired');
  });
});
