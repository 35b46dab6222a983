// Provider routes end to end: CRUD, defaults from the integration, derived status, filters, audit,
// and the two entities (PROVIDER, VIRTUAL_KEY) every row announces.
import { randomUUID } from 'node:crypto';
import { AuditOutcome, EntityKind, EntityStatus } from '@aigw/proto';
import { describe, expect } from 'vitest';
import { test } from '../../test/harness.js';
import { auditEvents } from '../../test/outbox-rows.js';
import {
  ALL_PROVIDER_SCOPES,
  createIntegration,
  entityChanges,
  expectError,
  expectSecretsNowhere,
  OPENAI_KEY,
  serviceKey,
  workspace,
} from '../integrations/integrations.test-support.js';

describe('providers', () => {
  test('create: defaults from the integration, 201, both entities and an audit record', async ({
    cp,
    pg,
  }) => {
    const ws = await workspace(cp, 'Prov');
    const integration = await createIntegration(cp, {
      name: 'Prov OpenAI',
      allow_all_workspaces: true,
      options: { custom_host: 'https://proxy.example.com/v1' },
    });
    const created = await cp.call('post', '/providers', {
      body: {
        workspace_id: ws.slug,
        integration_id: integration.slug,
        note: 'team default',
        allowed_models: ['gpt-4o'],
        rate_limits: [{ type: 'requests', unit: 'rph', value: 600 }],
        usage_limits: [{ type: 'tokens', credit_limit: 1000000, periodic_reset_days: 7 }],
        tags: { team: 'prov' },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      object: 'provider',
      workspace_id: ws.id,
      integration_id: integration.id,
      ai_provider: 'openai',
      name: 'Prov OpenAI',
      slug: 'prov-openai',
      note: 'team default',
      status: 'active',
      credentials: null,
      options: {},
      allowed_models: ['gpt-4o'],
      rate_limits: [{ type: 'requests', unit: 'rph', value: 600 }],
      usage_limits: [{ type: 'tokens', credit_limit: 1000000, periodic_reset_days: 7, current_usage: 0 }],
      expires_at: null,
      tags: { team: 'prov' },
      created_by_user_id: null,
      created_by_api_key_id: expect.any(String),
    });
    const [provider, virtualKey] = await entityChanges(pg.pool, created.body.id);
    expect(provider).toMatchObject({
      kind: EntityKind.PROVIDER,
      version: 1,
      workspaceId: ws.id,
      body: {
        $case: 'provider',
        value: {
          slug: 'prov-openai',
          integrationId: integration.id,
          aiProvider: 'openai',
          status: EntityStatus.ACTIVE,
          allowedModels: ['gpt-4o'],
          expiresAtMs: 0,
          tags: { team: 'prov' },
        },
      },
    });
    expect(provider?.body?.$case === 'provider' && provider.body.value.encryptedCredentials.length).toBe(0);
    expect(virtualKey).toMatchObject({
      kind: EntityKind.VIRTUAL_KEY,
      version: 1,
      body: { $case: 'virtualKey', value: { slug: 'prov-openai', providerId: created.body.id } },
    });
    const audit = (await auditEvents(pg.pool)).find((a) => a.action === 'providers.create');
    expect(audit).toMatchObject({
      resourceId: created.body.id,
      workspaceId: ws.id,
      outcome: AuditOutcome.SUCCESS,
    });

    const key = await serviceKey(cp, ws.id, ALL_PROVIDER_SCOPES);
    const own = await cp.call('post', '/providers', {
      key,
      body: {
        integration_id: integration.id,
        name: 'Second',
        slug: 'second',
        expires_at: '2099-01-01T00:00:00Z',
      },
    });
    expect(own.status, JSON.stringify(own.body)).toBe(201);
    expect(own.body).toMatchObject({
      workspace_id: ws.id,
      slug: 'second',
      expires_at: '2099-01-01T00:00:00.000Z',
    });
    await expectSecretsNowhere(pg.pool, [OPENAI_KEY]);
  });

  test('validation: AB01 with the field path, AB02 for unusable integrations, 409 for slugs', async ({
    cp,
  }) => {
    const ws = await workspace(cp, 'Checks');
    const archived = await workspace(cp, 'Checks old');
    await cp.call('delete', `/workspaces/${archived.id}`);
    const usable = await createIntegration(cp, {
      name: 'Usable',
      workspaces: [{ id: ws.id }],
      create_default_provider: false,
    });
    const elsewhere = await createIntegration(cp, { name: 'Elsewhere' });
    const ok = { workspace_id: ws.id, integration_id: usable.id };
    const cases: [Record<string, unknown>, number, string, string | null][] = [
      [{ integration_id: usable.id }, 400, 'AB01', 'body.workspace_id'],
      [{ workspace_id: ws.id }, 400, 'AB01', 'body.integration_id'],
      [{ ...ok, name: 'x'.repeat(256) }, 400, 'AB01', 'body.name'],
      [{ ...ok, slug: 's'.repeat(256) }, 400, 'AB01', 'body.slug'],
      [{ ...ok, slug: 'has space' }, 400, 'AB01', 'body.slug'],
      [{ ...ok, expires_at: '2001-01-01T00:00:00Z' }, 400, 'AB01', 'body.expires_at'],
      [
        { ...ok, rate_limits: [{ type: 'requests', unit: 'rpm', value: 1.5 }] },
        400,
        'AB01',
        'body.rate_limits.0.value',
      ],
      [
        { ...ok, usage_limits: { credit_limit: 10, periodic_reset: 'weekly', periodic_reset_days: 3 } },
        400,
        'AB01',
        'body.usage_limits.0.periodic_reset_days',
      ],
      [{ ...ok, tags: { t: 'v'.repeat(257) } }, 400, 'AB01', 'body.tags.t'],
      [{ ...ok, credentials: { api_key: 'k' } }, 400, 'AB01', 'body'],
      [{ ...ok, integration_id: elsewhere.id }, 404, 'AB02', 'body.integration_id'],
      [{ ...ok, integration_id: randomUUID() }, 404, 'AB02', 'body.integration_id'],
      [{ ...ok, workspace_id: randomUUID() }, 404, 'AB08', null],
      [{ ...ok, workspace_id: archived.id }, 409, 'AB07', 'body.workspace_id'],
    ];
    for (const [body, status, code, param] of cases) {
      expectError(await cp.call('post', '/providers', { body }), status, code, param);
    }
    expect((await cp.call('post', '/providers', { body: { ...ok, slug: 'taken' } })).status).toBe(201);
    expectError(
      await cp.call('post', '/providers', { body: { ...ok, slug: 'taken' } }),
      409,
      'AB07',
      'body.slug',
    );
    const listed = await cp.call('get', `/providers?workspace_id=${ws.id}`);
    expect(listed.body.total).toBe(1);
  });

  test('list: filters by workspace, integration, type, derived status and tags', async ({ cp, pg }) => {
    const ws = await workspace(cp, 'Listing');
    const openai = await createIntegration(cp, {
      name: 'List OpenAI',
      slug: 'list-openai',
      allow_all_workspaces: true,
    });
    const groq = await createIntegration(cp, {
      name: 'List Groq',
      ai_provider: 'groq',
      allow_all_workspaces: true,
    });
    const make = async (body: Record<string, unknown>) => {
      const res = await cp.call('post', '/providers', { body: { workspace_id: ws.id, ...body } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id as string;
    };
    const p1 = await make({ integration_id: openai.id, slug: 'p1', tags: { tier: 'gold', team: 'x' } });
    const p2 = await make({ integration_id: openai.id, slug: 'p2', tags: { tier: 'silver' } });
    const p3 = await make({ integration_id: groq.id, slug: 'p3', expires_at: '2099-01-01T00:00:00Z' });
    const p4 = await make({ integration_id: groq.id, slug: 'p4' });
    await pg.pool.query(
      "update control.providers set expires_at = now() - interval '1 minute' where id = $1",
      [p3],
    );
    expect((await cp.call('put', `/providers/${p4}`, { body: { status: 'disabled' } })).body.status).toBe(
      'disabled',
    );
    const ids = async (query: string) => {
      const res = await cp.call('get', `/providers?workspace_id=${ws.id}&${query}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data.map((p: { id: string }) => p.id).sort();
    };
    expect(await ids('')).toEqual([p1, p2, p3, p4].sort());
    expect(await ids('integration_id=list-openai')).toEqual([p1, p2].sort());
    expect(await ids(`integration_id=${groq.id}`)).toEqual([p3, p4].sort());
    expect(await ids('integration_id=no-such-integration')).toEqual([]);
    expect(await ids('ai_provider=groq')).toEqual([p3, p4].sort());
    expect(await ids('status=active')).toEqual([p1, p2].sort());
    expect(await ids('status=expired')).toEqual([p3]);
    expect(await ids('status=expired,disabled')).toEqual([p3, p4].sort());
    expect(await ids('tags=tier:gold')).toEqual([p1]);
    expect(await ids('tags=tier:gold&tags=team:y')).toEqual([]);
    expect((await cp.call('get', `/providers/${p3}`)).body.status).toBe('expired');
    const page = await cp.call('get', `/providers?workspace_id=${ws.id}&page_size=3&current_page=1`);
    expect(page.body).toMatchObject({ object: 'list', total: 4 });
    expect(page.body.data).toHaveLength(1);
    for (const bad of ['status=exhausted', 'tags=x', 'ai_provider=x', 'integration_id=a%20b', 'unknown=1']) {
      expectError(await cp.call('get', `/providers?${bad}`), 400, 'AB01');
    }
  });

  test('update and delete: versions, tombstones for both kinds, audit; the workspace never changes', async ({
    cp,
    pg,
  }) => {
    const ws = await workspace(cp, 'Mutations');
    const integration = await createIntegration(cp, { name: 'Mut', workspaces: [{ id: ws.id }] });
    const [provider] = (await cp.call('get', `/providers?integration_id=${integration.id}`)).body.data;
    const updated = await cp.call('put', `/providers/${provider.id}`, {
      body: {
        name: 'Renamed',
        slug: 'renamed',
        expires_at: '2098-01-01T00:00:00+02:00',
        usage_limits: null,
        tags: { a: 'b' },
      },
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body).toMatchObject({
      name: 'Renamed',
      slug: 'renamed',
      expires_at: '2097-12-31T22:00:00.000Z',
      tags: { a: 'b' },
    });
    expectError(
      await cp.call('put', `/providers/${provider.id}`, { body: { workspace_id: randomUUID() } }),
      400,
      'AB01',
      'body',
    );
    expectError(
      await cp.call('put', `/providers/${provider.id}`, { body: { integration_id: integration.id } }),
      400,
      'AB01',
      'body',
    );
    expectError(
      await cp.call('put', `/providers/${provider.id}`, { body: { status: 'exhausted' } }),
      400,
      'AB01',
      'body.status',
    );
    expectError(
      await cp.call('put', `/providers/${provider.id}`, { body: { expires_at: 'tomorrow' } }),
      400,
      'AB01',
      'body.expires_at',
    );
    expect(
      (await cp.call('put', `/providers/${provider.id}`, { body: { expires_at: null } })).body.expires_at,
    ).toBeNull();
    // A path that is neither a uuid nor a slug is malformed; a slug naming nothing is not found.
    expectError(
      await cp.call('put', `/providers/not%20a%20slug`, { body: { name: 'x' } }),
      400,
      'AB01',
      'path.providerId',
    );
    expectError(await cp.call('put', `/providers/no-such-provider`, { body: { name: 'x' } }), 404, 'AB08');

    const deleted = await cp.call('delete', `/providers/${provider.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({});
    expectError(await cp.call('get', `/providers/${provider.id}`), 404, 'AB08');
    expectError(await cp.call('delete', `/providers/${provider.id}`), 404, 'AB08');
    const changes = await entityChanges(pg.pool, provider.id);
    expect(changes.map((e) => [e.kind, e.version, e.tombstone])).toEqual([
      [EntityKind.PROVIDER, 1, false],
      [EntityKind.VIRTUAL_KEY, 1, false],
      [EntityKind.PROVIDER, 2, false],
      [EntityKind.VIRTUAL_KEY, 2, false],
      [EntityKind.PROVIDER, 3, false],
      [EntityKind.VIRTUAL_KEY, 3, false],
      [EntityKind.PROVIDER, 4, true],
      [EntityKind.VIRTUAL_KEY, 4, true],
    ]);
    const audits = (await auditEvents(pg.pool)).filter(
      (a) => a.resourceId === provider.id && a.action.startsWith('providers.'),
    );
    expect(audits.map((a) => [a.action, a.statusCode])).toEqual([
      ['providers.update', 200],
      ['providers.update', 400],
      ['providers.update', 400],
      ['providers.update', 400],
      ['providers.update', 400],
      ['providers.update', 200],
      ['providers.delete', 200],
      ['providers.delete', 404],
    ]);
  });
});
