// Reading secrets over each manager's documented API, against simulated Vault and AWS servers.
import { type FakeSecretManagers, startFakeSecretManagers } from '@aigw/testkit/secret-managers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSecret, SecretResolutionError, type SecretSource } from './secret-managers.js';

let fake: FakeSecretManagers;
const deps = {
  env: new Map([
    ['AIGW_SECRET_OPENAI', 'sk-from-env'],
    ['AIGW_SECRET_JSON', '{"a":"1"}'],
  ]),
  timeoutMs: 2000,
};

beforeAll(async () => {
  fake = await startFakeSecretManagers();
  fake.setVault('secret/team/openai', { api_key: 'sk-vault-1', other: 'x' });
  fake.setAws('prod/openai', JSON.stringify({ api_key: 'sk-aws-json' }));
  fake.setAws('prod/plain', 'sk-aws-plain');
});
afterAll(() => fake.close());

const vault = (path: string, token = fake.vaultToken): SecretSource => ({
  manager: 'vault_kv2',
  settings: { address: fake.url, mount: 'secret', path },
  auth: { token },
});
const aws = (secretId: string, secretAccessKey = fake.aws.secretAccessKey): SecretSource => ({
  manager: 'aws_secrets_manager',
  settings: { region: fake.aws.region, secret_id: secretId, endpoint: fake.url },
  auth: { aws_access_key_id: fake.aws.accessKeyId, aws_secret_access_key: secretAccessKey },
});

async function refusal(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SecretResolutionError);
  return (err as Error).message;
}

describe('secret managers', () => {
  it('Vault KV v2: the key of the latest version, read with the token', async () => {
    expect(await readSecret(vault('team/openai'), 'api_key', deps)).toBe('sk-vault-1');
    expect(fake.requests.at(-1)).toEqual({ api: 'vault', path: 'secret/team/openai', authorised: true });
    fake.setVault('secret/team/openai', { api_key: 'sk-vault-2' });
    expect(await readSecret(vault('team/openai'), 'api_key', deps)).toBe('sk-vault-2');
  });

  it('AWS Secrets Manager: a signed GetSecretValue, a JSON key or the whole string', async () => {
    expect(await readSecret(aws('prod/openai'), 'api_key', deps)).toBe('sk-aws-json');
    expect(fake.requests.at(-1)).toEqual({ api: 'aws', path: 'prod/openai', authorised: true });
    expect(await readSecret(aws('prod/plain'), null, deps)).toBe('sk-aws-plain');
  });

  it('env: only the AIGW_SECRET_* variables it was given', async () => {
    const env = (variable: string): SecretSource => ({ manager: 'env', settings: { variable }, auth: null });
    expect(await readSecret(env('AIGW_SECRET_OPENAI'), null, deps)).toBe('sk-from-env');
    expect(await readSecret(env('AIGW_SECRET_JSON'), 'a', deps)).toBe('1');
    expect(await refusal(readSecret(env('AIGW_SECRET_MISSING'), null, deps))).toContain('not set');
  });

  it('failures say what failed, never with the manager answer', async () => {
    expect(await refusal(readSecret(vault('team/openai', 'hvs.wrong'), 'api_key', deps))).toMatch(
      /answered 403$/,
    );
    expect(fake.requests.at(-1)?.authorised).toBe(false);
    expect(await refusal(readSecret(vault('team/missing'), 'api_key', deps))).toMatch(/answered 404$/);
    expect(await refusal(readSecret(vault('team/openai'), 'nope', deps))).toContain('no string value "nope"');
    expect(await refusal(readSecret(vault('team/openai'), null, deps))).toContain('name one with "key"');
    expect(await refusal(readSecret(aws('prod/openai', 'wrong-secret'), 'api_key', deps))).toMatch(
      /answered 400$/,
    );
    expect(fake.requests.at(-1)?.authorised).toBe(false);
    fake.failWith(500);
    try {
      const message = await refusal(readSecret(vault('team/openai'), 'api_key', deps));
      expect(message).toMatch(/answered 500$/);
      expect(message).not.toContain('do not show');
    } finally {
      fake.failWith(undefined);
    }
    const closed: SecretSource = {
      ...vault('x'),
      settings: { address: 'http://127.0.0.1:1', mount: 'secret', path: 'x' },
    };
    expect(await refusal(readSecret(closed, 'k', deps))).toContain('could not reach 127.0.0.1:1');
  });

  it('refuses cloud metadata addresses', async () => {
    const metadata: SecretSource = {
      ...vault('x'),
      settings: { address: 'http://169.254.169.254', mount: 'secret', path: 'x' },
    };
    expect(await refusal(readSecret(metadata, 'k', deps))).toContain('link-local');
  });
});
