// Reading secrets over each manager's documented API, against simulated Vault and AWS servers.
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
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

  // The metadata check used to read the URL's host with regexes: `new URL` writes an IPv4-mapped
  // address in hex (`[::ffff:a9fe:a9fe]`), which they missed, and fe80::/10, `::` and 0.0.0.0 were
  // not refused at all. Each of these reached the network (or the local host) before the fix.
  it.each([
    'http://[::ffff:169.254.169.254]',
    'http://[::ffff:a9fe:a9fe]',
    'http://[0:0:0:0:0:ffff:169.254.169.254]',
    'http://[::169.254.169.254]',
    'http://[64:ff9b::169.254.169.254]',
    'http://[fe80::1]',
    'http://[febf::1]',
    'http://[fd00:ec2::254]',
    'http://100.100.100.200',
    'http://[::]:{port}',
    'http://0.0.0.0:{port}',
    'http://0:{port}',
  ])('refuses %s as a Vault address, and as an AWS endpoint', async (template) => {
    const address = template.replace('{port}', new URL(fake.url).port);
    const before = fake.requests.length;
    const asVault: SecretSource = {
      ...vault('team/openai'),
      settings: { address, mount: 'secret', path: 'team/openai' },
    };
    const asAws: SecretSource = {
      ...aws('prod/plain'),
      settings: { region: fake.aws.region, secret_id: 'prod/plain', endpoint: address },
    };
    expect(await refusal(readSecret(asVault, 'api_key', deps))).toContain('never a secret manager');
    expect(await refusal(readSecret(asAws, null, deps))).toContain('never a secret manager');
    expect(fake.requests.length).toBe(before);
  });

  it('still refuses the decimal and hex spellings of 169.254.169.254', async () => {
    for (const address of ['http://2852039166', 'http://0xa9fea9fe', 'http://0251.0376.0251.0376']) {
      const source: SecretSource = { ...vault('x'), settings: { address, mount: 'secret', path: 'x' } };
      expect(await refusal(readSecret(source, 'k', deps))).toContain('169.254.169.254');
    }
  });

  it('refuses a name that resolves to a metadata address (any of its answers)', async () => {
    for (const answer of [['169.254.169.254'], ['10.0.0.5', 'fd00:ec2::254'], ['::ffff:a9fe:a9fe']]) {
      const lookup = async (): Promise<LookupAddress[]> =>
        answer.map((address) => ({ address, family: isIP(address) }));
      const source: SecretSource = {
        ...vault('x'),
        settings: { address: 'http://vault.internal.test:8200', mount: 'secret', path: 'x' },
      };
      const message = await refusal(readSecret(source, 'k', { ...deps, lookup }));
      expect(message).toContain('never a secret manager');
      expect(message).toContain('vault.internal.test');
    }
  });

  it('connects only to the address the check saw: a rebinding name is resolved once', async () => {
    // A rebinding resolver: the private address first (what the check sees), metadata afterwards.
    const queries: string[] = [];
    const lookup = async (hostname: string): Promise<LookupAddress[]> => {
      queries.push(hostname);
      return [{ address: queries.length === 1 ? '127.0.0.1' : '169.254.169.254', family: 4 }];
    };
    const port = new URL(fake.url).port;
    const source: SecretSource = {
      ...vault('team/openai'),
      settings: { address: `http://vault.rebind.test:${port}`, mount: 'secret', path: 'team/openai' },
    };
    fake.setVault('secret/team/openai', { api_key: 'sk-pinned' });
    expect(await readSecret(source, 'api_key', { ...deps, lookup })).toBe('sk-pinned');
    expect(fake.requests.at(-1)).toEqual({ api: 'vault', path: 'secret/team/openai', authorised: true });
    expect(queries).toEqual(['vault.rebind.test']);

    const awsSource: SecretSource = {
      ...aws('prod/plain'),
      settings: {
        region: fake.aws.region,
        secret_id: 'prod/plain',
        endpoint: `http://aws.rebind.test:${port}`,
      },
    };
    queries.length = 0;
    expect(await readSecret(awsSource, null, { ...deps, lookup })).toBe('sk-aws-plain');
    expect(queries).toEqual(['aws.rebind.test']);
  });
});
