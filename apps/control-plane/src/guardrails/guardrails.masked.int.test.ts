// Webhook and partner check headers of a saved guardrail sent back masked on update (GET, rename, PUT
// the body back) keep the stored values: the envelope in Postgres and in the change event gateways
// receive opens to the original headers. A mask that matches nothing stored at the same check index
// and header name is a 400 naming the header; real values replace.
import { EntityKind } from '@aigw/proto';
import type pg from 'pg';
import { describe, expect } from 'vitest';
import { test } from '../../test/harness.js';
import { expectError, lastChange, workspace } from '../configs/configs.test-support.js';
import { openedHeaders, PARTNER_SECRET, SECRET, WEBHOOK_CHECKS } from './guardrails.headers.test-support.js';

/** Header names are stored lower-case (the config schema normalises them). */
const ORIGINAL = {
  '1': { authorization: `Bearer ${SECRET}`, 'x-tenant': 'acme' },
  '2': { 'x-api-key': PARTNER_SECRET },
};

async function stored(pool: pg.Pool, id: string): Promise<unknown> {
  const { rows } = await pool.query<{ e: Buffer | null }>(
    'select encrypted_headers as e from control.guardrails where id = $1',
    [id],
  );
  return openedHeaders(id, rows[0]?.e);
}

async function changed(pool: pg.Pool, id: string): Promise<unknown> {
  const change = await lastChange(pool, id, EntityKind.GUARDRAIL);
  return openedHeaders(id, change?.body?.$case === 'guardrail' ? change.body.value.encryptedHeaders : null);
}

describe('guardrail check headers sent back masked', () => {
  test('a GET body with a new name PUT back keeps every stored header value', async ({ cp, pg }) => {
    const ws = await workspace(cp, 'Masked guard');
    const created = await cp.call('post', '/guardrails', {
      body: { name: 'Hooked', workspace_id: ws.id, checks: WEBHOOK_CHECKS },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    const got = await cp.call('get', `/guardrails/${id}`);
    expect(got.body.checks[1].parameters.headers).toEqual({ authorization: '****oken', 'x-tenant': '****' });

    const put = await cp.call('put', `/guardrails/${id}`, {
      body: { name: 'Renamed', checks: got.body.checks, actions: got.body.actions, async: got.body.async },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.name).toBe('Renamed');
    expect(put.body.checks).toEqual(got.body.checks);
    expect(await stored(pg.pool, id)).toEqual(ORIGINAL);
    expect(await changed(pg.pool, id)).toEqual(ORIGINAL);
  });

  test('a stray mask is refused on its header; a real value replaces while masks keep the rest', async ({
    cp,
    pg,
  }) => {
    const ws = await workspace(cp, 'Stray guard');
    const created = await cp.call('post', '/guardrails', {
      body: { name: 'Hooked', workspace_id: ws.id, checks: WEBHOOK_CHECKS },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    const webhook = (headers: Record<string, string>) => ({
      id: 'webhook',
      parameters: { url: 'https://hooks.example.com/guard', headers },
    });
    const put = (checks: unknown[]) => cp.call('put', `/guardrails/${id}`, { body: { checks } });

    const wrong = await put([
      { id: 'valid_json' },
      webhook({ authorization: '****abcd', 'x-tenant': '****' }),
    ]);
    expectError(wrong, 400, 'AB01', 'body.checks.1.parameters.headers.authorization');
    expect(wrong.body.error.message).toContain('send the real value');
    // The same masks at another check index: nothing is stored there.
    expectError(
      await put([webhook({ authorization: '****oken' }), { id: 'valid_json' }]),
      400,
      'AB01',
      'body.checks.0.parameters.headers.authorization',
    );
    expect(await stored(pg.pool, id)).toEqual(ORIGINAL);

    const rotated = await put([
      { id: 'valid_json' },
      webhook({ authorization: 'Bearer rotated-0123456789-rot1', 'x-tenant': '****' }),
    ]);
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    const expected = { '1': { authorization: 'Bearer rotated-0123456789-rot1', 'x-tenant': 'acme' } };
    expect(await stored(pg.pool, id)).toEqual(expected);
    expect(await changed(pg.pool, id)).toEqual(expected);
  });
});
