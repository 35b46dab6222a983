import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isKeyMaterial, redactSecrets } from './redaction.js';

describe('redactSecrets', () => {
  it('keeps the keys of a policy (conditions and group_by are names, not secrets)', () => {
    const body = {
      conditions: [
        { key: 'workspace_id', value: 'ws-1' },
        { key: 'api_key', value: randomUUID() },
      ],
      group_by: [{ key: 'api_key' }, { key: 'metadata._user' }],
      type: 'tokens',
      credit_limit: 10,
    };
    expect(redactSecrets(body, 'usage_limits_policy')).toEqual(body);
    expect(redactSecrets(body, 'rate_limits_policy')).toEqual(body);
  });

  it("redacts known resources' secret fields: a virtual key's key, credentials, an invite token, webhook headers", () => {
    expect(redactSecrets({ name: 'vk', key: 'short', credentials: { api_key: 'x' } }, 'virtual_key')).toEqual(
      {
        name: 'vk',
        key: '[redacted]',
        credentials: '[redacted]',
      },
    );
    // `key` is a secret of a virtual key, not of every resource.
    expect(redactSecrets({ key: 'team' }, 'workspace')).toEqual({ key: 'team' });
    expect(redactSecrets({ token: 'abc' }, 'user_invite')).toEqual({ token: '[redacted]' });
    expect(
      redactSecrets(
        {
          checks: [{ id: 'default.webhook', parameters: { url: 'https://x', headers: { 'x-tenant': 'a' } } }],
        },
        'guardrail',
      ),
    ).toEqual({
      checks: [{ id: 'default.webhook', parameters: { url: 'https://x', headers: '[redacted]' } }],
    });
  });

  it('redacts fields that hold secrets in every resource (passwords, client secrets, tokens)', () => {
    expect(
      redactSecrets({
        password: 'hunter2',
        client_secret: 'c',
        aws_secret_access_key: 'a',
        aws_session_token: 's',
        service_account_json: '{}',
        nested: { 'X-Service-Api-Key': 'k', apiKey: 'k', Authorization: 'x' },
      }),
    ).toEqual({
      password: '[redacted]',
      client_secret: '[redacted]',
      aws_secret_access_key: '[redacted]',
      aws_session_token: '[redacted]',
      service_account_json: '[redacted]',
      nested: { 'X-Service-Api-Key': '[redacted]', apiKey: '[redacted]', Authorization: '[redacted]' },
    });
  });

  it('redacts key material in any field, query parameters included', () => {
    const apiKey = `aigw_${randomBytes(32).toString('base64url')}`;
    const provider = `sk-proj-${randomBytes(24).toString('base64url')}`;
    const jwt = `eyJhbGciOiJSUzI1NiJ9.${Buffer.from('{"sub":"u"}').toString('base64url')}.${randomBytes(64).toString('base64url')}`;
    const random = randomBytes(24).toString('base64url');
    const body = {
      name: 'fine',
      description: `pasted ${apiKey} by mistake`,
      metadata: { note: provider, other: jwt, blob: random, hex: randomBytes(32).toString('hex') },
      list: [`Bearer ${randomBytes(16).toString('hex')}`],
    };
    expect(redactSecrets(body, 'workspace')).toEqual({
      name: 'fine',
      description: '[redacted]',
      metadata: { note: '[redacted]', other: '[redacted]', blob: '[redacted]', hex: '[redacted]' },
      list: ['[redacted]'],
    });
    expect(redactSecrets({ api_key_id: randomUUID(), cursor: 'x' }, 'api_key')).toMatchObject({
      cursor: 'x',
    });
  });

  it('keeps identifiers, names and counters whose names merely mention keys or tokens', () => {
    const body = {
      api_key_id: randomUUID(),
      private_key_id: 'k',
      max_tokens: 5,
      group_by_key: 'user',
      model: 'claude-3-5-sonnet-20241022',
      slug: 'research-team-2026-production-eu-west',
      settings: { api_key_max_expiry_days: 30, max_api_keys_per_user: 3 },
    };
    expect(redactSecrets(body, 'organisation')).toEqual(body);
  });
});

describe('isKeyMaterial', () => {
  it('tells generated secrets from words, ids and slugs', () => {
    for (const secret of [
      `aigw_invite_${randomBytes(32).toString('base64url')}`,
      `sk-ant-api03-${randomBytes(30).toString('base64url')}`,
      randomBytes(30).toString('base64'),
      // base64 with `/` and `+` inside (a random one like it once slipped through, split at `/`)
      'XKzmDz+FBkcso1PeYUE2A/y3qBObvpzfqLJkBudp',
      // generated secrets without a digit (random ones lack one now and then)
      'XKzmDzFBkcsoPeYUEAyqBObvpzfqLJkBudpQ',
      'qTzWvRbLxNhKcYdGfJmPsAeUoI',
      '-----BEGIN PRIVATE KEY-----\nMIIE...',
    ])
      expect(isKeyMaterial(secret), secret).toBe(true);
    for (const plain of [
      randomUUID(),
      'gpt-4o-mini-2024-07-18',
      'Research and Development team',
      'https://example.com/v1',
    ])
      expect(isKeyMaterial(plain), plain).toBe(false);
  });
});
