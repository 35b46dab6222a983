// MCP integration auth sent back masked on update (GET, rename, PUT the body back) keeps the stored
// secret: the envelope in Postgres and in the change event opens to the original token, and the sync
// after the update still authenticates with it. A mask that matches nothing stored is a 400 naming
// the field; a real value replaces.
import { EntityKind } from '@aigw/proto';
import { credentialsAad, openSecret, parseMasterKey } from '@aigw/secret-box';
import { type McpUpstream, startMcpUpstream } from '@aigw/testkit/mcp-server';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { MASTER_KEY, test } from '../../test/harness.js';
import { entityChanges, expectError } from '../integrations/integrations.test-support.js';
import { MCP_TOKEN, mcpIntegration } from '../mcp-servers/mcp.test-support.js';

const masterKey = parseMasterKey(MASTER_KEY);

let upstream: McpUpstream;
beforeAll(async () => {
  upstream = await startMcpUpstream({ token: MCP_TOKEN });
});
afterAll(() => upstream.close());

function opened(id: string, envelope: Uint8Array | null | undefined): unknown {
  return JSON.parse(
    openSecret(masterKey, Buffer.from(envelope ?? []), credentialsAad('mcp_integration', id)).toString(
      'utf8',
    ),
  );
}

async function stored(pool: pg.Pool, id: string): Promise<unknown> {
  const { rows } = await pool.query<{ e: Buffer | null }>(
    'select encrypted_credentials as e from control.mcp_integrations where id = $1',
    [id],
  );
  return opened(id, rows[0]?.e);
}

async function changed(pool: pg.Pool, id: string): Promise<unknown> {
  const change = (await entityChanges(pool, id, EntityKind.MCP_INTEGRATION)).at(-1);
  return opened(id, change?.body?.$case === 'mcpIntegration' ? change.body.value.encryptedCredentials : null);
}

describe('MCP integration auth sent back masked', () => {
  test('a GET body with a new name PUT back keeps the token, and the sync still uses it', async ({
    cp,
    pg,
  }) => {
    const created = await mcpIntegration(cp, upstream.url);
    const got = await cp.call('get', `/mcp-integrations/${created.id}`);
    expect(got.body.auth).toEqual({ type: 'bearer', token: '****wxyz' });

    const seen = upstream.authorizations.length;
    const put = await cp.call('put', `/mcp-integrations/${created.id}`, {
      body: {
        name: 'Weather renamed',
        description: got.body.description,
        url: got.body.url,
        transport: got.body.transport,
        auth: got.body.auth,
        tags: got.body.tags,
      },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.name).toBe('Weather renamed');
    expect(put.body.auth).toEqual({ type: 'bearer', token: '****wxyz' });
    expect(await stored(pg.pool, created.id)).toEqual({ token: MCP_TOKEN });
    expect(await changed(pg.pool, created.id)).toEqual({ token: MCP_TOKEN });
    // The sync after the update authenticated with the stored token, not with its mask.
    expect(put.body.sync).toMatchObject({ status: 'ok', error: null });
    const sent = upstream.authorizations.slice(seen);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((a) => a === `Bearer ${MCP_TOKEN}`)).toBe(true);
  });

  test('a stray mask is refused on its field; a real value replaces', async ({ cp, pg }) => {
    const created = await mcpIntegration(cp, upstream.url, { name: 'Weather stray' });
    const put = (auth: Record<string, unknown>) =>
      cp.call('put', `/mcp-integrations/${created.id}`, { body: { auth } });

    const wrong = await put({ type: 'bearer', token: '****abcd' });
    expectError(wrong, 400, 'AB01', 'body.auth.token');
    expect(wrong.body.error.message).toContain('send the real value');
    // Another auth type stores no client secret to keep.
    expectError(
      await put({
        type: 'oauth_client_credentials',
        client_id: 'aigw',
        client_secret: '****wxyz',
        token_url: 'https://auth.example.com/token',
      }),
      400,
      'AB01',
      'body.auth.client_secret',
    );
    expect(await stored(pg.pool, created.id)).toEqual({ token: MCP_TOKEN });

    const rotated = await put({ type: 'bearer', token: 'mcp-rotated-token-0123456789-rot1' });
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    expect(rotated.body.auth).toEqual({ type: 'bearer', token: '****rot1' });
    expect(await stored(pg.pool, created.id)).toEqual({ token: 'mcp-rotated-token-0123456789-rot1' });
  });
});
