// Inline-guardrail check headers of a saved config sent back masked on update (GET, change the name
// or a retry count, PUT the body back) keep the stored values: the round trip with only a new name
// adds no version, a changed retry count adds one whose envelope (Postgres and the change event)
// opens to the original headers. A mask that matches nothing stored at the same check path and
// header name is a 400 naming the header; real values replace.
import { EntityKind } from '@aigw/proto';
import { configHeadersAad, openSecret, parseMasterKey } from '@aigw/secret-box';
import type pg from 'pg';
import { describe, expect } from 'vitest';
import { MASTER_KEY, test } from '../../test/harness.js';
import { expectError, lastChange, workspace } from './configs.test-support.js';

const SECRET = 'whsec-9f8e7d6c5b4a3210-webhook-token';
const NESTED_SECRET = 'nested-key-0123456789abcdefXYZ';

function webhook(url: string, headers: Record<string, string>) {
  return { id: 'webhook', parameters: { url, headers } };
}

function hookedConfig(root: Record<string, string>, nested: Record<string, string>, attempts = 1) {
  return {
    strategy: { mode: 'fallback' },
    retry: { attempts },
    input_guardrails: [
      { id: 'root-hook', checks: [{ id: 'valid_json' }, webhook('https://hooks.example.com/in', root)] },
    ],
    targets: [
      { provider: 'openai' },
      {
        provider: 'anthropic',
        output_guardrails: [{ checks: [webhook('https://hooks.example.com/out', nested)] }],
      },
    ],
  };
}

const ROOT = { Authorization: `Bearer ${SECRET}`, 'x-tenant': 'acme' };
const NESTED = { 'x-api-key': NESTED_SECRET };
const ROOT_PATH = 'input_guardrails.0.checks.1';
const NESTED_PATH = 'targets.1.output_guardrails.0.checks.0';
const ORIGINAL = { [ROOT_PATH]: ROOT, [NESTED_PATH]: NESTED };

const masterKey = parseMasterKey(MASTER_KEY);

function opened(id: string, version: number, envelope: Uint8Array | null | undefined): unknown {
  return JSON.parse(
    openSecret(masterKey, Buffer.from(envelope ?? []), configHeadersAad(id, version)).toString('utf8'),
  );
}

async function latest(pool: pg.Pool, id: string) {
  const { rows } = await pool.query<{ e: Buffer | null; config_version: number }>(
    'select encrypted_headers as e, config_version from control.configs where id = $1',
    [id],
  );
  const versions = await pool.query<{ n: string }>(
    'select count(*) as n from control.config_versions where config_id = $1',
    [id],
  );
  const row = rows[0];
  return {
    version: row?.config_version,
    versions: Number(versions.rows[0]?.n),
    headers: opened(id, row?.config_version ?? 0, row?.e),
  };
}

async function changed(pool: pg.Pool, id: string): Promise<unknown> {
  const change = await lastChange(pool, id, EntityKind.CONFIG);
  const value = change?.body?.$case === 'config' ? change.body.value : undefined;
  return opened(id, value?.version ?? 0, value?.encryptedHeaders);
}

async function createHooked(cp: Parameters<typeof workspace>[0], name: string): Promise<string> {
  const ws = await workspace(cp, name);
  const created = await cp.call('post', '/configs', {
    body: { name, workspace_id: ws.id, config: hookedConfig(ROOT, NESTED) },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id as string;
}

describe('config check headers sent back masked', () => {
  test('a GET body PUT back with a new name adds no version; with a new retry count the new version keeps the headers', async ({
    cp,
    pg,
  }) => {
    const id = await createHooked(cp, 'Masked config');
    const got = await cp.call('get', `/configs/${id}`);
    expect(got.body.config.input_guardrails[0].checks[1].parameters.headers).toEqual({
      Authorization: '****oken',
      'x-tenant': '****',
    });

    const renamed = await cp.call('put', `/configs/${id}`, {
      body: { name: 'Renamed', config: got.body.config },
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body.name).toBe('Renamed');
    expect(renamed.body.version).toBe(1);
    expect(await latest(pg.pool, id)).toEqual({ version: 1, versions: 1, headers: ORIGINAL });
    expect(await changed(pg.pool, id)).toEqual(ORIGINAL);

    const again = await cp.call('get', `/configs/${id}`);
    const config = { ...again.body.config, retry: { attempts: 3 } };
    const retried = await cp.call('put', `/configs/${id}`, { body: { config } });
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.body.version).toBe(2);
    expect(retried.body.config.retry).toMatchObject({ attempts: 3 });
    expect(await latest(pg.pool, id)).toEqual({ version: 2, versions: 2, headers: ORIGINAL });
    expect(await changed(pg.pool, id)).toEqual(ORIGINAL);
  });

  test('a stray mask is refused on its header; a real value replaces while masks keep the rest', async ({
    cp,
    pg,
  }) => {
    const id = await createHooked(cp, 'Stray config');
    const put = (config: unknown) => cp.call('put', `/configs/${id}`, { body: { config } });

    const wrong = await put(
      hookedConfig({ Authorization: '****oken', 'x-tenant': '****' }, { 'x-api-key': '****abcd' }),
    );
    expectError(
      wrong,
      400,
      'AB01',
      'config.targets[1].output_guardrails[0].checks[0].parameters.headers["x-api-key"]',
    );
    expect(wrong.body.error.message).toContain('send the real value');
    // A header name that stores nothing at that check.
    expectError(
      await put(hookedConfig({ Authorization: '****oken', 'x-extra': '****' }, { 'x-api-key': '****fXYZ' })),
      400,
      'AB01',
      'config.input_guardrails[0].checks[1].parameters.headers["x-extra"]',
    );
    expect(await latest(pg.pool, id)).toEqual({ version: 1, versions: 1, headers: ORIGINAL });

    const rotated = await put(
      hookedConfig(
        { Authorization: 'Bearer rotated-0123456789-rot1', 'x-tenant': '****' },
        {
          'x-api-key': '****fXYZ',
        },
      ),
    );
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    expect(rotated.body.version).toBe(2);
    const expected = {
      [ROOT_PATH]: { Authorization: 'Bearer rotated-0123456789-rot1', 'x-tenant': 'acme' },
      [NESTED_PATH]: NESTED,
    };
    expect(await latest(pg.pool, id)).toEqual({ version: 2, versions: 2, headers: expected });
    expect(await changed(pg.pool, id)).toEqual(expected);
  });
});
