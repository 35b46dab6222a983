// Conditional writes end to end (docs/decisions.md "Conditional updates"): the row version as a
// strong ETag, If-Match checked under the row lock (one winner among concurrent writers, 409 AB07
// for the rest, nothing written or published for them), and the same wiring on every family.
import { AuditOutcome, EntityKind } from '@aigw/proto';
import type pg from 'pg';
import { describe, expect } from 'vitest';
import { type ApiResponse, type ControlPlaneFixture, test } from '../../test/harness.js';
import { auditEvents } from '../../test/outbox-rows.js';
import { readSnapshot, snapshotEntities } from '../../test/snapshot-client.js';
import { guardrail, provider } from '../configs/configs.test-support.js';
import {
  createIntegration,
  entityChanges,
  expectError,
  serviceKey,
  workspace,
} from '../integrations/integrations.test-support.js';
import { insertUser, organisationId } from '../workspaces/workspaces.test-support.js';

const CONFIG = {
  strategy: { mode: 'fallback' },
  targets: [{ provider: 'openai' }, { provider: 'anthropic' }],
};

function etagOf(res: ApiResponse): string {
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  const etag = res.headers.get('etag');
  expect(etag, `${res.status} ${JSON.stringify(res.body)}`).toMatch(/^"\d+"$/);
  return etag as string;
}

const next = (etag: string) => `"${Number(etag.slice(1, -1)) + 1}"`;

async function createConfig(cp: ControlPlaneFixture, name: string) {
  const ws = await workspace(cp, name);
  const res = await cp.call('post', '/configs', { body: { name, workspace_id: ws.id, config: CONFIG } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { ws, config: res.body, etag: etagOf(res) };
}

async function storedVersion(pool: pg.Pool, table: string, id: string): Promise<string | undefined> {
  const { rows } = await pool.query<{ version: string }>(
    `select version from control.${table} where id = $1`,
    [id],
  );
  return rows[0]?.version;
}

describe('conditional updates (ETag / If-Match)', () => {
  test('configs: the ETag is the row version; a stale If-Match is 409 AB07 and writes nothing', async ({
    cp,
    pg,
  }) => {
    const { config, etag: created } = await createConfig(cp, 'Conditional');
    expect(created).toBe('"1"');
    const path = `/configs/${config.id}`;
    expect(etagOf(await cp.call('get', path))).toBe('"1"');

    // A rename is a new row version but not a new config version: the ETag follows the row.
    const renamed = await cp.call('put', path, { body: { name: 'Renamed' }, headers: { 'if-match': '"1"' } });
    expect(etagOf(renamed)).toBe('"2"');
    expect(renamed.body).toMatchObject({ name: 'Renamed', version: 1 });
    expect(etagOf(await cp.call('get', `/configs/${config.slug}?workspace_id=${config.workspace_id}`))).toBe(
      '"2"',
    );

    const changes = (await entityChanges(pg.pool, config.id, EntityKind.CONFIG)).length;
    const stale = await cp.call('put', path, {
      body: { name: 'Lost update', config: { provider: 'openai' } },
      headers: { 'if-match': '"1"' },
    });
    expectError(stale, 409, 'AB07', 'header.if-match');
    expect(stale.body.error.message).toBe('the config changed since version 1 (now 2): read it again');
    const after = await cp.call('get', path);
    expect(etagOf(after)).toBe('"2"');
    expect(after.body).toMatchObject({ name: 'Renamed', version: 1, config: CONFIG });
    expect(await storedVersion(pg.pool, 'configs', config.id)).toBe('2');
    expect(await entityChanges(pg.pool, config.id, EntityKind.CONFIG)).toHaveLength(changes);
    // Refused like any mutation: audited as a failure, with its status.
    const audit = (await auditEvents(pg.pool)).filter(
      (a) => a.action === 'configs.update' && a.outcome === AuditOutcome.FAILURE,
    );
    expect(audit.map((a) => a.statusCode)).toEqual([409]);

    // A stale DELETE leaves the config in place.
    expectError(await cp.call('delete', path, { headers: { 'if-match': '"1"' } }), 409, 'AB07');
    expect((await cp.call('get', path)).status).toBe(200);

    // `*` matches any existing config; a list matches when one of its tags does.
    expect(etagOf(await cp.call('put', path, { body: { name: 'Star' }, headers: { 'if-match': '*' } }))).toBe(
      '"3"',
    );
    const listed = await cp.call('put', path, {
      body: { name: 'Listed' },
      headers: { 'if-match': '"1", "3"' },
    });
    expect(etagOf(listed)).toBe('"4"');

    // Weak tags never match (strong comparison); a malformed header is 400 AB01. Neither writes.
    const weak = await cp.call('put', path, { body: { name: 'Weak' }, headers: { 'if-match': 'W/"4"' } });
    expectError(weak, 409, 'AB07', 'header.if-match');
    expect(weak.body.error.message).toContain('weak');
    expectError(
      await cp.call('put', path, { body: { name: 'Bare' }, headers: { 'if-match': '4' } }),
      400,
      'AB01',
      'header.if-match',
    );
    expect((await cp.call('get', path)).body.name).toBe('Listed');
    expect(await storedVersion(pg.pool, 'configs', config.id)).toBe('4');

    // The version ETag is never answered 304: a body can hold figures that are not in the row.
    const fresh = await cp.call('get', path, { headers: { 'if-none-match': '"4"' } });
    expect(fresh.status).toBe(200);

    expect((await cp.call('delete', path, { headers: { 'if-match': '"4"' } })).status).toBe(200);
    // Gone: the handler's 404 comes before the precondition.
    expectError(
      await cp.call('put', path, { body: { name: 'Ghost' }, headers: { 'if-match': '*' } }),
      404,
      'AB08',
    );
  });

  test('workspaces: ETag on create, read, update and archive; a stale archive leaves it active', async ({
    cp,
  }) => {
    const created = await cp.call('post', '/workspaces', { body: { name: 'Conditional team' } });
    expect(created.status).toBe(201);
    expect(etagOf(created)).toBe('"1"');
    const path = `/workspaces/${created.body.slug}`;
    expect(etagOf(await cp.call('get', path))).toBe('"1"');
    const updated = await cp.call('put', path, {
      body: { description: 'first' },
      headers: { 'if-match': '"1"' },
    });
    expect(etagOf(updated)).toBe('"2"');
    expectError(
      await cp.call('put', path, { body: { description: 'second' }, headers: { 'if-match': '"1"' } }),
      409,
      'AB07',
      'header.if-match',
    );
    expectError(await cp.call('delete', path, { headers: { 'if-match': '"1"' } }), 409, 'AB07');
    const kept = await cp.call('get', path);
    expect(kept.body).toMatchObject({ status: 'active', description: 'first' });
    const archived = await cp.call('delete', path, { headers: { 'if-match': '"2"' } });
    expect(archived.body.status).toBe('archived');
    expect(etagOf(archived)).toBe('"3"');
  });

  test('concurrent PUTs with the same If-Match: exactly one wins, the rest are 409 and publish nothing', async ({
    cp,
    pg,
  }) => {
    const { config, etag } = await createConfig(cp, 'Race');
    const path = `/configs/${config.id}`;
    const writers = Array.from({ length: 8 }, (_, i) => ({
      name: `Writer ${i}`,
      config: { provider: 'openai', retry: { attempts: i + 1 } },
    }));
    const answers = await Promise.all(
      writers.map((body) => cp.call('put', path, { body, headers: { 'if-match': etag } })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    for (const refused of answers.filter((a) => a.status === 409)) expectError(refused, 409, 'AB07');
    const winner = answers.find((a) => a.status === 200);
    expect(winner && etagOf(winner)).toBe(next(etag));
    const body = writers[answers.indexOf(winner as ApiResponse)];

    // One new version, published once; the stored config and the snapshot are the winner's.
    const published = (await entityChanges(pg.pool, config.id, EntityKind.CONFIG)).map((e) => e.version);
    expect(published).toEqual([1, 2]);
    const stored = await cp.call('get', path);
    expect(etagOf(stored)).toBe('"2"');
    expect(stored.body).toMatchObject({ name: body?.name, version: 2, config: body?.config });
    const served = snapshotEntities(await readSnapshot(cp.app.ports.grpc)).find((e) => e.id === config.id);
    expect(served).toMatchObject({ version: 2, body: { value: { name: body?.name } } });
  });

  test('If-Match never reveals an entity the caller may not see, and routes without versions refuse it', async ({
    cp,
    pg,
  }) => {
    const { config } = await createConfig(cp, 'Hidden');
    const other = await workspace(cp, 'Other team');
    const key = await serviceKey(cp, other.id, ['configs.update', 'configs.delete', 'configs.read']);
    for (const method of ['put', 'delete'])
      expectError(
        await cp.call(method, `/configs/${config.id}`, {
          key,
          body: { name: 'x' },
          headers: { 'if-match': '"99"' },
        }),
        404,
        'AB08',
      );

    const userId = await insertUser(pg.pool, await organisationId(pg.pool));
    const member = await cp.call('post', `/workspaces/${other.id}/members`, {
      body: { users: [{ id: userId, role: 'member' }] },
    });
    expect(member.status, JSON.stringify(member.body)).toBeLessThan(300);
    const refused = await cp.call('put', `/workspaces/${other.id}/members/${userId}`, {
      body: { role: 'manager' },
      headers: { 'if-match': '"1"' },
    });
    expectError(refused, 400, 'AB01', 'header.if-match');
    expect(refused.body.error.message).toContain('does not take If-Match');
    // Without the header the route is as before.
    expect(
      (await cp.call('put', `/workspaces/${other.id}/members/${userId}`, { body: { role: 'manager' } }))
        .status,
    ).toBe(200);
  });
  test('every family: GET gives the ETag, PUT and DELETE take it, a stale one is 409', async ({ cp, pg }) => {
    const ws = await workspace(cp, 'Every family');
    const created = async (path: string, body: Record<string, unknown>): Promise<string> => {
      const res = await cp.call('post', path, { body });
      expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(201);
      expect(etagOf(res), path).toBe('"1"');
      return res.body.id;
    };
    const integration = await createIntegration(cp, { name: 'Every family', allow_all_workspaces: true });
    const config = await created('/configs', { name: 'Every family', workspace_id: ws.id, config: CONFIG });
    const subjects: { path: string; update: Record<string, unknown>; remove?: false }[] = [
      { path: '/organisation', update: { name: 'Renamed organisation' }, remove: false },
      {
        path: `/users/${await insertUser(pg.pool, await organisationId(pg.pool))}`,
        update: { first_name: 'Ada' },
      },
      {
        path: `/api-keys/${await created('/api-keys/workspace/service', { name: 'svc', workspace_id: ws.id, scopes: ['completions.write'] })}`,
        update: { name: 'Renamed key' },
      },
      { path: `/integrations/${integration.id}`, update: { name: 'Renamed integration' } },
      { path: `/providers/${await provider(cp, ws, 'every-family')}`, update: { name: 'Renamed provider' } },
      {
        path: `/virtual-keys/${await created('/virtual-keys', { name: 'vk', workspace_id: ws.id, provider: 'openai', key: 'sk-test-every-family-0123456789' })}`,
        update: { name: 'Renamed virtual key' },
      },
      {
        path: `/guardrails/${(await guardrail(cp, { workspace_id: ws.id })).id}`,
        update: { name: 'Renamed guard' },
      },
      {
        path: `/policies/rate-limits/${await created('/policies/rate-limits', { name: 'rpm', type: 'requests', unit: 'rpm', value: 60, conditions: [{ key: 'workspace_id', value: ws.id }], group_by: [{ key: 'api_key' }], workspace_id: ws.id })}`,
        update: { name: 'Renamed rpm' },
      },
      {
        path: `/policies/usage-limits/${await created('/policies/usage-limits', { name: 'budget', type: 'cost', credit_limit: 10, conditions: [{ key: 'workspace_id', value: ws.id }], group_by: [{ key: 'workspace_id' }], workspace_id: ws.id })}`,
        update: { name: 'Renamed budget' },
      },
      {
        path: `/model-pricing/${await created('/model-pricing', { ai_provider: 'openai', model: 'gpt-every-family', input_per_mtok: 1, output_per_mtok: 2 })}`,
        update: { input_per_mtok: 3 },
      },
      {
        path: `/prompts/${await created('/prompts', { name: 'Greeting', workspace_id: ws.id, string: 'Hello {{name}}' })}`,
        update: { name: 'Renamed prompt' },
      },
      {
        path: `/prompt-partials/${await created('/prompt-partials', { name: 'Signature', workspace_id: ws.id, string: 'Bye' })}`,
        update: { name: 'Renamed partial' },
      },
      {
        path: `/deployments/${await created('/deployments', { name: 'Prod', workspace_id: ws.id, type: 'production', config_id: config })}`,
        update: { name: 'Renamed deployment' },
      },
      { path: `/configs/${config}`, update: { name: 'Renamed config' } },
    ];
    for (const { path, update, remove } of subjects) {
      const read = etagOf(await cp.call('get', path));
      const written = await cp.call('put', path, { body: update, headers: { 'if-match': read } });
      expect(etagOf(written), path).toBe(next(read));
      expect(etagOf(await cp.call('get', path)), path).toBe(next(read));
      const stale = await cp.call('put', path, { body: update, headers: { 'if-match': read } });
      expectError(stale, 409, 'AB07', 'header.if-match');
      if (remove === false) continue;
      expectError(await cp.call('delete', path, { headers: { 'if-match': read } }), 409, 'AB07');
      const removed = await cp.call('delete', path, { headers: { 'if-match': next(read) } });
      expect(removed.status, `${path} ${JSON.stringify(removed.body)}`).toBe(200);
    }
  });
});
