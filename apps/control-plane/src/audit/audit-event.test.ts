import { describe, expect, it } from 'vitest';
import { redactSecrets } from './audit-event.js';

describe('redactSecrets', () => {
  it('keeps the keys of a policy (conditions and group_by are names, not secrets)', () => {
    const body = {
      conditions: [{ key: 'workspace_id', value: 'ws-1' }],
      group_by: [{ key: 'api_key' }],
      type: 'tokens',
      credit_limit: 10,
    };
    expect(redactSecrets(body)).toEqual(body);
  });

  it('redacts provider credentials, tokens, passwords and header maps', () => {
    expect(
      redactSecrets({
        key: 'sk-provider',
        credentials: { api_key: 'sk-1' },
        token: 'invite-token',
        password: 'p',
        client_secret: 'c',
        aws_secret_access_key: 'a',
        aws_session_token: 's',
        service_account_json: '{}',
        check: { parameters: { url: 'https://x', headers: { Authorization: 'Bearer t' } } },
        nested: { 'X-Service-Api-Key': 'sk-2', apiKey: 'sk-3' },
      }),
    ).toEqual({
      key: '[redacted]',
      credentials: '[redacted]',
      token: '[redacted]',
      password: '[redacted]',
      client_secret: '[redacted]',
      aws_secret_access_key: '[redacted]',
      aws_session_token: '[redacted]',
      service_account_json: '[redacted]',
      check: { parameters: { url: 'https://x', headers: '[redacted]' } },
      nested: { 'X-Service-Api-Key': '[redacted]', apiKey: '[redacted]' },
    });
  });

  it('keeps identifiers and counters whose names merely mention keys or tokens', () => {
    const body = {
      api_key_id: '1',
      private_key_id: 'k',
      max_tokens: 5,
      group_by_key: 'user',
      settings: { api_key_max_expiry_days: 30, max_api_keys_per_user: 3 },
    };
    expect(redactSecrets(body)).toEqual(body);
  });
});
