// Secrets sent back masked on update keep the stored ones for the last two owners of a masked secret:
// a virtual key's own credentials (`key` shorthand or `credentials`) and a secret reference's manager
// `auth` (integrations/masked-values.ts). GET, change the name, PUT the body back: the envelopes open
// to the original values; a stray mask is a 400 naming its field; a real value replaces.
import { credentialsAad, openSecret, parseMasterKey } from '@aigw/secret-box';
import { type FakeSecretManagers, startFakeSecretManagers } from '@aigw/testkit/secret-managers';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { MASTER_KEY, test } from '../../test/harness.js';
import {
  AWS_SECRET,
  expectError,
  OPENAI_KEY,
  ROTATED_KEY,
  workspace,
} from '../integrations/integrations.test-support.js';
import { referenceAad } from '../secrets/secret-managers.js';

const masterKey = parseMasterKey(MASTER_KEY);

let fake: FakeSecretManagers;
beforeAll(async () => {
  fake = await startFakeSecretManagers();
});
afterAll(() => fake.close());

async function opened(pool: pg.Pool, sql: string, id: string, aad: string): Promise<unknown> {
  const { rows } = await pool.query<{ e: Buffer }>(sql, [id]);
  return JSON.parse(openSecret(masterKey, rows[0]?.e as Buffer, aad).toString('utf8'));
}

const providerCredentials = (pool: pg.Pool, id: string) =>
  opened(
    pool,
    'select encrypted_credentials as e from control.providers where id = $1',
    id,
    credentialsAad('provider', id),
  );

const referenceAuth = (pool: pg.Pool, id: string) =>
  opened(
    pool,
    'select encrypted_auth as e from control.secret_references where id = $1',
    id,
    referenceAad(id),
  );

describe('virtual key credentials sent back masked', () => {
  test('key shorthand and credentials: the mask keeps the stored value; stray masks are 400; real values replace', async ({
    cp,
    pg,
  }) => {
    const ws = await workspace(cp, 'Masked VK');
    const created = await cp.call('post', '/virtual-keys', {
      body: { workspace_id: ws.id, name: 'Masked VK', provider: 'openai', key: OPENAI_KEY },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    const got = await cp.call('get', `/virtual-keys/${id}`);
    const masked = got.body.key as string;
    expect(masked).toBe(`****${OPENAI_KEY.slice(-4)}`);

    const renamed = await cp.call('put', `/virtual-keys/${id}`, { body: { name: 'Renamed', key: masked } });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body.name).toBe('Renamed');
    expect(await providerCredentials(pg.pool, id)).toEqual({ api_key: OPENAI_KEY });
    const viaCredentials = await cp.call('put', `/virtual-keys/${id}`, {
      body: { credentials: { api_key: masked } },
    });
    expect(viaCredentials.status, JSON.stringify(viaCredentials.body)).toBe(200);
    expect(await providerCredentials(pg.pool, id)).toEqual({ api_key: OPENAI_KEY });

    expectError(
      await cp.call('put', `/virtual-keys/${id}`, { body: { key: '****nope' } }),
      400,
      'AB01',
      'body.key',
    );
    expectError(
      await cp.call('put', `/virtual-keys/${id}`, { body: { credentials: { api_key: '****' } } }),
      400,
      'AB01',
      'body.credentials.api_key',
    );
    expect(await providerCredentials(pg.pool, id)).toEqual({ api_key: OPENAI_KEY });

    const rotated = await cp.call('put', `/virtual-keys/${id}`, { body: { key: ROTATED_KEY } });
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    expect(await providerCredentials(pg.pool, id)).toEqual({ api_key: ROTATED_KEY });
  });

  test('bedrock: the masked secret key kept beside a new access key id', async ({ cp, pg }) => {
    const original = { aws_access_key_id: 'AKIAABCDEFGHIJKLMNOP', aws_secret_access_key: AWS_SECRET };
    const ws = await workspace(cp, 'Bedrock masked');
    const created = await cp.call('post', '/virtual-keys', {
      body: {
        workspace_id: ws.id,
        name: 'Bedrock masked',
        provider: 'bedrock',
        credentials: original,
        options: { region: 'us-east-1' },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    const got = await cp.call('get', `/virtual-keys/${id}`);
    const put = await cp.call('put', `/virtual-keys/${id}`, {
      body: {
        credentials: {
          aws_access_key_id: 'AKIAZZZZZZZZZZZZZZZZ',
          aws_secret_access_key: got.body.credentials.aws_secret_access_key,
        },
      },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(await providerCredentials(pg.pool, id)).toEqual({
      aws_access_key_id: 'AKIAZZZZZZZZZZZZZZZZ',
      aws_secret_access_key: AWS_SECRET,
    });
  });
});

describe('secret reference auth sent back masked', () => {
  test('the GET body PUT back keeps the manager token; a stray mask is 400; a real token replaces', async ({
    cp,
    pg,
  }) => {
    const created = await cp.call('post', '/secret-references', {
      body: {
        name: 'masked-vault',
        manager: 'vault_kv2',
        settings: { address: fake.url, mount: 'secret', path: 'team/openai' },
        auth: { token: fake.vaultToken },
        allow_all_workspaces: true,
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    const got = await cp.call('get', `/secret-references/${id}`);
    expect(got.body.auth).toEqual({ token: `****${fake.vaultToken.slice(-4)}` });

    const put = await cp.call('put', `/secret-references/${id}`, {
      body: { name: 'renamed-vault', settings: got.body.settings, auth: got.body.auth },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.name).toBe('renamed-vault');
    expect(await referenceAuth(pg.pool, id)).toEqual({ token: fake.vaultToken });

    expectError(
      await cp.call('put', `/secret-references/${id}`, { body: { auth: { token: '****zzzz' } } }),
      400,
      'AB01',
      'body.auth.token',
    );
    expect(await referenceAuth(pg.pool, id)).toEqual({ token: fake.vaultToken });

    const rotated = await cp.call('put', `/secret-references/${id}`, {
      body: { auth: { token: 'hvs.rotated-token-0001' } },
    });
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    expect(await referenceAuth(pg.pool, id)).toEqual({ token: 'hvs.rotated-token-0001' });
  });
});
