// Credentials sent back masked on update (GET, change the name, PUT the body back) keep the stored
// secrets: the envelope in Postgres and the one change events hand to gateways open to the original
// values. A mask that matches nothing stored at its field is a 400 naming the field; real values
// replace as before.
import { EntityKind } from '@aigw/proto';
import { credentialsAad, openSecret, parseMasterKey, sealSecret } from '@aigw/secret-box';
import type pg from 'pg';
import { describe, expect } from 'vitest';
import { MASTER_KEY, test } from '../../test/harness.js';
import {
  AWS_SECRET,
  createIntegration,
  entityChanges,
  expectError,
  HEADER_SECRET,
  OPENAI_KEY,
  ROTATED_KEY,
} from './integrations.test-support.js';

const masterKey = parseMasterKey(MASTER_KEY);

function opened(id: string, envelope: Uint8Array | null | undefined): unknown {
  return JSON.parse(
    openSecret(masterKey, Buffer.from(envelope ?? []), credentialsAad('integration', id)).toString('utf8'),
  );
}

async function storedCredentials(pool: pg.Pool, id: string): Promise<unknown> {
  const { rows } = await pool.query<{ e: Buffer | null }>(
    'select encrypted_credentials as e from control.integrations where id = $1',
    [id],
  );
  return opened(id, rows[0]?.e);
}

async function changedCredentials(pool: pg.Pool, id: string): Promise<unknown> {
  const change = (await entityChanges(pool, id, EntityKind.INTEGRATION)).at(-1);
  return opened(id, change?.body?.$case === 'integration' ? change.body.value.encryptedCredentials : null);
}

const ORIGINAL = {
  api_key: OPENAI_KEY,
  custom_headers: { 'x-org-token': HEADER_SECRET, 'x-short': 'short1' },
};

describe('integration credentials sent back masked', () => {
  test('a GET body with a new name PUT back keeps every stored secret', async ({ cp, pg }) => {
    const created = await createIntegration(cp, { credentials: ORIGINAL });
    const got = await cp.call('get', `/integrations/${created.id}`);
    expect(got.body.credentials).toEqual({
      api_key: '****wxyz',
      custom_headers: { 'x-org-token': '****hdr1', 'x-short': '****' },
    });

    const put = await cp.call('put', `/integrations/${created.id}`, {
      body: {
        name: 'Renamed',
        description: got.body.description,
        status: got.body.status,
        credentials: got.body.credentials,
        options: got.body.options,
        allowed_models: got.body.allowed_models,
        tags: got.body.tags,
      },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.name).toBe('Renamed');
    expect(put.body.credentials).toEqual(got.body.credentials);
    expect(await storedCredentials(pg.pool, created.id)).toEqual(ORIGINAL);
    expect(await changedCredentials(pg.pool, created.id)).toEqual(ORIGINAL);
  });

  test('a stray mask is refused on its field; a real value replaces while masks keep the rest', async ({
    cp,
    pg,
  }) => {
    const created = await createIntegration(cp, { name: 'OpenAI stray', credentials: ORIGINAL });
    const put = (credentials: Record<string, unknown>) =>
      cp.call('put', `/integrations/${created.id}`, { body: { credentials } });

    // Not the mask of the stored key (its last four are wxyz).
    const wrong = await put({ api_key: '****abcd', custom_headers: ORIGINAL.custom_headers });
    expectError(wrong, 400, 'AB01', 'body.credentials.api_key');
    expect(wrong.body.error.type).toBe('invalid_request_error');
    expect(wrong.body.error.message).toContain('send the real value');
    // A header name that stores nothing.
    expectError(
      await put({ api_key: '****wxyz', custom_headers: { 'x-new': '****' } }),
      400,
      'AB01',
      'body.credentials.custom_headers.x-new',
    );
    expect(await storedCredentials(pg.pool, created.id)).toEqual(ORIGINAL);

    const rotated = await put({
      api_key: ROTATED_KEY,
      custom_headers: { 'x-org-token': '****hdr1', 'x-added': 'added-header-value' },
    });
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    const expected = {
      api_key: ROTATED_KEY,
      custom_headers: { 'x-org-token': HEADER_SECRET, 'x-added': 'added-header-value' },
    };
    expect(await storedCredentials(pg.pool, created.id)).toEqual(expected);
    expect(await changedCredentials(pg.pool, created.id)).toEqual(expected);
  });

  test('an envelope that no longer opens blocks no real value; a mask for it is refused', async ({
    cp,
    pg,
  }) => {
    const created = await createIntegration(cp, { name: 'OpenAI foreign', credentials: ORIGINAL });
    // Sealed under another MASTER_KEY (a key rotated without re-sealing): nothing readable is stored.
    const foreign = sealSecret(
      Buffer.alloc(32, 9),
      JSON.stringify(ORIGINAL),
      credentialsAad('integration', created.id),
    );
    await pg.pool.query('update control.integrations set encrypted_credentials = $1 where id = $2', [
      foreign,
      created.id,
    ]);
    const put = (credentials: Record<string, unknown>) =>
      cp.call('put', `/integrations/${created.id}`, { body: { credentials } });
    expectError(await put({ api_key: '****wxyz' }), 400, 'AB01', 'body.credentials.api_key');
    const replaced = await put({ api_key: ROTATED_KEY });
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
    expect(await storedCredentials(pg.pool, created.id)).toEqual({ api_key: ROTATED_KEY });
  });

  test('bedrock and vertex: a masked access key id and key file sent back keep the stored ones', async ({
    cp,
    pg,
  }) => {
    const aws = {
      aws_access_key_id: 'AKIAABCDEFGHIJKLMNOP',
      aws_secret_access_key: AWS_SECRET,
    };
    const keyFile = {
      type: 'service_account',
      client_email: 'a@b.c',
      private_key: 'PEM-private-key-body',
      private_key_id: 'kid-0123456789abcdef',
    };
    const kinds = [
      { ai_provider: 'bedrock', credentials: aws, options: { region: 'eu-west-1' }, stored: aws },
      {
        ai_provider: 'vertex-ai',
        credentials: { service_account_json: JSON.stringify(keyFile) },
        options: { project_id: 'proj-1', region: 'us-central1' },
        stored: { service_account_json: keyFile },
      },
    ];
    for (const [i, { stored, ...body }] of kinds.entries()) {
      const created = await createIntegration(cp, {
        name: `Kind ${i}`,
        create_default_provider: false,
        ...body,
      });
      const got = await cp.call('get', `/integrations/${created.id}`);
      expect(JSON.stringify(got.body.credentials)).toMatch(/\*{4}/);
      const put = await cp.call('put', `/integrations/${created.id}`, {
        body: { name: `Kind ${i} renamed`, credentials: got.body.credentials },
      });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      expect(await storedCredentials(pg.pool, created.id)).toEqual(stored);
    }
  });
});
