// The MCP sync's outbound rule end to end (docs/decisions.md, "Outbound hosts of the control plane"):
// a metadata or this-host address is refused however it is spelt, for the server and its token
// endpoint, and the connection goes only to the address the check saw (one DNS query per host).
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { createDatabase } from '@aigw/db';
import { createLogger } from '@aigw/runtime';
import { parseMasterKey } from '@aigw/secret-box';
import { type McpUpstream, startMcpUpstream, startTokenEndpoint } from '@aigw/testkit/mcp-server';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { MASTER_KEY, test } from '../../test/harness.js';
import { mcpDb } from '../db/mcp.db.js';
import type { ControlDatabase } from '../db/schema.js';
import { syncMcpIntegration } from '../mcp-integrations/mcp-sync.js';
import type { LookupFn } from '../outbound/outbound-host.js';
import { MCP_TOKEN, mcpIntegration } from './mcp.test-support.js';

let upstream: McpUpstream;
beforeAll(async () => {
  upstream = await startMcpUpstream({ token: MCP_TOKEN });
});
afterAll(() => upstream.close());

const port = (url: string): string => new URL(url).port;

/** A resolver that knows only `records` and counts the queries per name. */
function resolver(records: Record<string, (query: number) => string>): LookupFn & { queries: string[] } {
  const queries: string[] = [];
  const lookup = async (hostname: string): Promise<LookupAddress[]> => {
    queries.push(hostname);
    const answer = records[hostname];
    if (answer === undefined)
      throw Object.assign(new Error(`no record for ${hostname}`), { code: 'ENOTFOUND' });
    const address = answer(queries.filter((q) => q === hostname).length);
    return [{ address, family: isIP(address) }];
  };
  return Object.assign(lookup, { queries });
}

describe('MCP sync outbound hosts', () => {
  test('refuses cloud metadata and this-host addresses in every spelling, server and token endpoint', async ({
    cp,
  }) => {
    const seen = upstream.authorizations.length;
    const refused = [
      'http://[::ffff:169.254.169.254]/mcp',
      'http://[64:ff9b::a9fe:a9fe]/mcp',
      'http://[::169.254.169.254]/mcp',
      'http://[fe80::1]/mcp',
      'http://[fd00:ec2::254]/mcp',
      'http://100.100.100.200/mcp',
      `http://0.0.0.0:${port(upstream.url)}/mcp`,
      `http://[::]:${port(upstream.url)}/mcp`,
    ];
    for (const [n, url] of refused.entries()) {
      const created = await mcpIntegration(cp, url, { name: `Refused ${n}` });
      expect(created.sync.status, url).toBe('error');
      expect(created.sync.error, url).toContain('refused');
    }
    const token = await mcpIntegration(cp, upstream.url, {
      name: 'Refused token endpoint',
      auth: {
        type: 'oauth_client_credentials',
        client_id: 'a',
        client_secret: 's',
        token_url: 'http://[::ffff:a9fe:a9fe]/token',
      },
    });
    expect(token.sync.status).toBe('error');
    expect(token.sync.error).toContain('refused');
    // Nothing reached the server (0.0.0.0 and :: would have been the local host).
    expect(upstream.authorizations.length).toBe(seen);
  });

  test('the decimal spelling of 169.254.169.254 is refused too', async ({ cp }) => {
    const created = await mcpIntegration(cp, 'http://2852039166/mcp', { name: 'Decimal' });
    expect(created.sync.status).toBe('error');
    expect(created.sync.error).toContain('169.254.169.254');
  });

  test('a name that resolves to metadata is refused; a rebinding name is resolved once and pinned', async ({
    cp,
    pg,
  }) => {
    const accessToken = 'oauth-access-token-pinned';
    const tokens = await startTokenEndpoint({ clientId: 'aigw', clientSecret: 'pinned-secret', accessToken });
    const pinned = await startMcpUpstream({ token: accessToken });
    const database = createDatabase<ControlDatabase>({
      url: pg.url,
      schema: 'control',
      applicationName: 'mcp-outbound-test',
    });
    try {
      // Created through the API (the system resolver does not know these names: a recorded error).
      const metadata = await mcpIntegration(cp, 'http://mcp.metadata.test/mcp', { name: 'Metadata name' });
      const rebinding = await mcpIntegration(cp, `http://mcp.rebind.test:${port(pinned.url)}/mcp`, {
        name: 'Rebinding name',
        auth: {
          type: 'oauth_client_credentials',
          client_id: 'aigw',
          client_secret: 'pinned-secret',
          token_url: `http://token.rebind.test:${port(tokens.url)}/token`,
        },
      });
      // The check gets a loopback (private, allowed) answer; any later query would get metadata.
      const lookup = resolver({
        'mcp.metadata.test': () => '169.254.169.254',
        'mcp.rebind.test': (n) => (n === 1 ? '127.0.0.1' : '169.254.169.254'),
        'token.rebind.test': (n) => (n === 1 ? '127.0.0.1' : '169.254.169.254'),
      });
      const deps = {
        db: database.db,
        masterKey: parseMasterKey(MASTER_KEY),
        log: createLogger({ app: 'test', level: 'silent' }),
        lookup,
      };
      const rows = mcpDb(database.db).selectFrom('mcp_integrations').selectAll();
      await syncMcpIntegration(deps, await rows.where('id', '=', metadata.id).executeTakeFirstOrThrow());
      await syncMcpIntegration(deps, await rows.where('id', '=', rebinding.id).executeTakeFirstOrThrow());

      const refused = await cp.call('get', `/mcp-integrations/${metadata.id}`);
      expect(refused.body.sync.status).toBe('error');
      expect(refused.body.sync.error).toContain('169.254.169.254');
      expect(refused.body.sync.error).toContain('refused');

      const synced = await cp.call('get', `/mcp-integrations/${rebinding.id}`);
      expect(synced.body.sync, JSON.stringify(synced.body.sync)).toMatchObject({ status: 'ok', error: null });
      expect(tokens.exchanges).toBe(1);
      expect(new Set(pinned.authorizations)).toEqual(new Set([`Bearer ${accessToken}`]));
      // Every request of the sync (initialize, listings, DELETE) went through one answer per name.
      expect(lookup.queries.sort()).toEqual(['mcp.metadata.test', 'mcp.rebind.test', 'token.rebind.test']);
    } finally {
      await database.close();
      await pinned.close();
      await tokens.close();
    }
  });
});
