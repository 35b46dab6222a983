// Credential envelopes: opened with MASTER_KEY and the owner's AAD, kept per entity version, and a
// failure names the entity without leaking the envelope or the plaintext.
import { createLogger } from '@aigw/runtime';
import { describe, expect, it } from 'vitest';
import { seal, TEST_MASTER_KEY } from '../../test/control-plane-entities.js';
import { isGatewayError } from '../errors.js';
import { CredentialStore } from './credentials.js';

const log = createLogger({ app: 'test', level: 'silent' });

describe('CredentialStore', () => {
  it('opens the credential fields the gateway uses', () => {
    const store = new CredentialStore(TEST_MASTER_KEY, log);
    const aws = seal('integration', 'i-1', {
      aws_access_key_id: 'AKIAEXAMPLE',
      aws_secret_access_key: 'secret',
      custom_headers: { 'X-Org': 'o1' },
    });
    expect(store.open('integration', 'i-1', 1, aws)).toEqual({
      awsAccessKeyId: 'AKIAEXAMPLE',
      awsSecretAccessKey: 'secret',
      customHeaders: { 'x-org': 'o1' },
    });
  });

  it('opens once per entity version: the same version is served from memory', () => {
    const store = new CredentialStore(TEST_MASTER_KEY, log);
    const first = seal('provider', 'p-1', { api_key: 'sk-one' });
    const second = seal('provider', 'p-1', { api_key: 'sk-two' });
    expect(store.open('provider', 'p-1', 1, first).apiKey).toBe('sk-one');
    // Same version: not opened again (the envelope is not even read).
    expect(store.open('provider', 'p-1', 1, second).apiKey).toBe('sk-one');
    expect(store.open('provider', 'p-1', 2, second).apiKey).toBe('sk-two');
  });

  it('refuses an envelope moved to another entity (AAD), and works without leaking it', () => {
    const store = new CredentialStore(TEST_MASTER_KEY, log);
    const envelope = seal('integration', 'i-1', { api_key: 'sk-secret-value' });
    let error: unknown;
    try {
      store.open('integration', 'i-2', 1, envelope);
    } catch (err) {
      error = err;
    }
    expect(isGatewayError(error, 'credentials_unavailable')).toBe(true);
    expect(String((error as Error).message)).not.toContain('sk-secret-value');
    expect(String((error as Error).message)).toContain('i-2');
  });

  it('without MASTER_KEY every envelope is credentials_unavailable', () => {
    const store = new CredentialStore(undefined, log);
    expect(() => store.open('provider', 'p-1', 1, seal('provider', 'p-1', { api_key: 'k' }))).toThrow(
      /MASTER_KEY/,
    );
  });
});
