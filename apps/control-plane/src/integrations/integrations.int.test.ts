// Integration routes end to end: CRUD, per-type validation, filters, audit, and credentials that
// exist in clear only in the request that sets them.
import { randomUUID } from 'node:crypto';
import { AuditOutcome, EntityKind, EntityStatus } from '@aigw/proto';
import { credentialsAad, openSecret, parseMasterKey } from '@aigw/secret-box';
import { describe, expect } from 'vitest';
import { MASTER_KEY, test } from '../../test/harness.js';
import { auditEvents } from '../../test/outbox-rows.js';
import {
  AWS_SECRET,
  createIntegration,
  entityChanges,
  expectError,
  expectMasked,
  expectSecretsNowhere,
  HEADER_SECRET,
  OPENAI_KEY,
  ROTATED_KEY,
  workspace,
} from './integrations.test-support.js';

const key = parseMasterKey(MASTER_KEY);

function openCredentials(envelope: Buffer, id: string): unknown {
  return JSON.parse(openSecret(key, envelope, credentialsAad('integration', id)).toString('utf8'));
}

describe('integrations', () => {
  test('create: 201 with masked credentials, a sealed change event and a redacted audit record', async ({
    cp,
    pg,
  }) => {
    const created = await cp.call('post', '/integrations', {
      body: {
        name: 'OpenAI Prod',
        ai_provider: 'openai',
        description: 'main account',
        credentials: { api_key: OPENAI_KEY, custom_headers: { 'x-org-token': HEADER_SECRET } },
        options: { custom_host: 'https://llm-proxy.example.com/v1/' },
        allowed_models: ['gpt-4o', 'gpt-4o-mini', 'gpt-4o'],
        rate_limits: [{ type: 'requests', unit: 'rpm', value: 100 }],
        usage_limits: { credit_limit: 50, periodic_reset: 'monthly' },
        tags: { team: 'core', env: 'prod' },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      object: 'integration',
      name: 'OpenAI Prod',
      slug: 'openai-prod',
      ai_provider: 'openai',
      status: 'active',
      credentials: { api_key: '****wxyz', custom_headers: { 'x-org-token': '****hdr1' } },
      options: { custom_host: 'https://llm-proxy.example.com/v1' },
      allow_all_workspaces: false,
      workspaces: [],
      allowed_models: ['gpt-4o', 'gpt-4o-mini'],
      rate_limits: [{ type: 'requests', unit: 'rpm', value: 100 }],
      usage_limits: [{ type: 'cost', credit_limit: 50, periodic_reset: 'monthly', current_usage: 0 }],
      tags: { team: 'core', env: 'prod' },
    });
    expectMasked(created.body, OPENAI_KEY);
    expectMasked(created.body, HEADER_SECRET);

    const [change] = await entityChanges(pg.pool, created.body.id, EntityKind.INTEGRATION);
    expect(change).toMatchObject({ version: 1, tombstone: false, workspaceId: '' });
    const body = change?.body?.$case === 'integration' ? change.body.value : undefined;
    expect(body).toMatchObject({
      slug: 'openai-prod',
      aiProvider: 'openai',
      status: EntityStatus.ACTIVE,
      options: { custom_host: 'https://llm-proxy.example.com/v1' },
      allowedModels: ['gpt-4o', 'gpt-4o-mini'],
      tags: { team: 'core', env: 'prod' },
    });
    expect(body?.usageLimits[0]?.creditLimit).toBe(50_000_000);
    expect(openCredentials(body?.encryptedCredentials ?? Buffer.alloc(0), created.body.id)).toEqual({
      api_key: OPENAI_KEY,
      custom_headers: { 'x-org-token': HEADER_SECRET },
    });
    // Bound to its owner: the same envelope does not open as another integration's.
    expect(() => openCredentials(body?.encryptedCredentials ?? Buffer.alloc(0), randomUUID())).toThrow();

    const audit = (await auditEvents(pg.pool)).find((a) => a.action === 'integrations.create');
    expect(audit).toMatchObject({
      resourceType: 'integration',
      resourceId: created.body.id,
      outcome: AuditOutcome.SUCCESS,
      statusCode: 201,
    });
    expect(JSON.parse(audit?.requestDetailsJson ?? '{}').body.credentials).toBe('[redacted]');
    await expectSecretsNowhere(pg.pool, [OPENAI_KEY, HEADER_SECRET]);
  });

  test('credentials and options are checked per provider type, naming the field (AB01)', async ({
    cp,
    pg,
  }) => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ai_provider: 'openai' }, 'body.credentials'],
      [{ ai_provider: 'openai', credentials: { api_key: 'sk', secret: 'x' } }, 'body.credentials'],
      [{ ai_provider: 'openai', credentials: { api_key: 'bad\nkey' } }, 'body.credentials.api_key'],
      [{ ai_provider: 'openai', credentials: { api_key: 'k' }, options: { region: 'eu' } }, 'body.options'],
      [
        {
          ai_provider: 'bedrock',
          credentials: { aws_access_key_id: 'AKIAABCDEFGHIJKLMNOP' },
          options: { region: 'eu-west-1' },
        },
        'body.credentials.aws_secret_access_key',
      ],
      [{ ai_provider: 'bedrock', credentials: { api_key: 'k' } }, 'body.options.region'],
      [{ ai_provider: 'azure-openai', credentials: { api_key: 'k' } }, 'body.options.resource_name'],
      [
        { ai_provider: 'vertex-ai', credentials: { service_account_json: '{' } },
        'body.credentials.service_account_json',
      ],
      [{ ai_provider: 'openai-compatible' }, 'body.options.custom_host'],
      [
        {
          ai_provider: 'openai',
          credentials: { api_key: 'k' },
          options: { custom_host: 'http://u:p@h.example.com' },
        },
        'body.options.custom_host',
      ],
      [{ ai_provider: 'nope', credentials: { api_key: 'k' } }, 'body.ai_provider'],
      [{ ai_provider: 'openai', credentials: { api_key: 'k' }, name: 'n'.repeat(256) }, 'body.name'],
      [{ ai_provider: 'openai', credentials: { api_key: 'k' }, slug: 'Upper' }, 'body.slug'],
      [{ ai_provider: 'openai', credentials: { api_key: 'k' }, slug: randomUUID() }, 'body.slug'],
      [
        {
          ai_provider: 'openai',
          credentials: { api_key: 'k' },
          rate_limits: [{ type: 'requests', unit: 'rps', value: 1 }],
        },
        'body.rate_limits.0.unit',
      ],
      [
        {
          ai_provider: 'openai',
          credentials: { api_key: 'k' },
          usage_limits: [{ credit_limit: 5, alert_threshold: 9 }],
        },
        'body.usage_limits.0.alert_threshold',
      ],
      [
        { ai_provider: 'openai', credentials: { api_key: 'k' }, usage_limits: { credit_limit: 5, extra: 1 } },
        'body.usage_limits.0',
      ],
      [
        { ai_provider: 'openai', credentials: { api_key: 'k' }, tags: { 'bad key': 'x' } },
        'body.tags.bad key',
      ],
      [
        {
          ai_provider: 'openai',
          credentials: { api_key: 'k' },
          tags: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])),
        },
        'body.tags',
      ],
      [
        { ai_provider: 'openai', credentials: { api_key: 'k' }, key: 'sk-top-level-0123456789abcdef' },
        'body',
      ],
      [
        { ai_provider: 'openai', credentials: { api_key: 'k' }, workspaces: [{ id: 'x', extra: true }] },
        'body.workspaces.0',
      ],
    ];
    for (const [body, param] of cases) {
      const res = await cp.call('post', '/integrations', { body: { name: 'Case', ...body } });
      expectError(res, 400, 'AB01', param);
    }
    const listed = await cp.call('get', '/integrations?page_size=500');
    expect(listed.body.data.filter((i: { name: string }) => i.name === 'Case')).toEqual([]);
    const failed = (await auditEvents(pg.pool)).filter(
      (a) => a.action === 'integrations.create' && a.outcome === AuditOutcome.FAILURE,
    );
    expect(failed.map((a) => a.statusCode)).toEqual(cases.map(() => 400));
    expect(failed.some((a) => a.requestDetailsJson.includes('sk-top-level-0123456789abcdef'))).toBe(false);
  });

  test('every provider type takes its own credential shapes and options', async ({ cp, pg }) => {
    const created = await Promise.all(
      [
        {
          ai_provider: 'bedrock',
          credentials: { aws_access_key_id: 'AKIAABCDEFGHIJKLMNOP', aws_secret_access_key: AWS_SECRET },
          options: { region: 'eu-west-1' },
        },
        {
          ai_provider: 'azure-openai',
          credentials: { client_id: 'app-id', client_secret: 'entra-secret-0123456789', tenant_id: 'tenant' },
          options: {
            resource_name: 'my-res',
            api_version: '2024-10-21',
            deployments: [{ deployment_id: 'gpt4o', model: 'gpt-4o', is_default: true }],
          },
        },
        {
          ai_provider: 'vertex-ai',
          credentials: {
            service_account_json: JSON.stringify({
              type: 'service_account',
              client_email: 'a@b.c',
              private_key: 'PEM-private-key-body',
              private_key_id: 'kid-0123456789abcdef',
            }),
          },
          options: { project_id: 'proj-1', region: 'us-central1' },
        },
        {
          ai_provider: 'ollama',
          credentials: undefined,
          options: { custom_host: 'http://ollama.internal:11434' },
        },
        {
          ai_provider: 'openai-compatible',
          credentials: { custom_headers: { 'x-api-token': HEADER_SECRET } },
          options: { custom_host: 'https://llm.example.com/v1' },
        },
      ].map((body, i) => createIntegration(cp, { name: `Type ${i}`, ...body })),
    );
    expect(created.map((c) => c.credentials)).toEqual([
      { aws_access_key_id: '****MNOP', aws_secret_access_key: '****SECR' },
      { client_id: '****', client_secret: '****6789', tenant_id: '****' },
      { service_account_json: '****cdef' },
      null,
      { custom_headers: { 'x-api-token': '****hdr1' } },
    ]);
    expect(created[1]?.options.deployments).toEqual([
      { deployment_id: 'gpt4o', model: 'gpt-4o', is_default: true },
    ]);
    const vertex = await pg.pool.query(
      'select encrypted_credentials from control.integrations where id = $1',
      [created[2]?.id],
    );
    const file = openCredentials(vertex.rows[0].encrypted_credentials, created[2]?.id ?? '') as {
      service_account_json: { private_key: string };
    };
    expect(file.service_account_json.private_key).toBe('PEM-private-key-body');
    await expectSecretsNowhere(pg.pool, [
      AWS_SECRET,
      'entra-secret-0123456789',
      'PEM-private-key-body',
      HEADER_SECRET,
    ]);
  });

  test('list filters by provider type, status, tags and workspace; get by id or slug', async ({ cp }) => {
    const ws = await workspace(cp, 'Filter team');
    const a = await createIntegration(cp, { name: 'Filter A', tags: { team: 'filters', env: 'prod' } });
    const b = await createIntegration(cp, {
      name: 'Filter B',
      ai_provider: 'groq',
      tags: { team: 'filters', env: 'dev' },
    });
    const c = await createIntegration(cp, {
      name: 'Filter C',
      tags: { team: 'ml' },
      workspaces: [{ id: ws.id }],
      create_default_provider: false,
    });
    expect((await cp.call('put', `/integrations/${b.id}`, { body: { status: 'disabled' } })).status).toBe(
      200,
    );
    const ids = async (query: string) => {
      const res = await cp.call('get', `/integrations?${query}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data
        .map((i: { id: string }) => i.id)
        .filter((id: string) => [a.id, b.id, c.id].includes(id));
    };
    expect(await ids('tags=team:filters')).toEqual([b.id, a.id]);
    expect(await ids('tags=team:filters&tags=env:prod')).toEqual([a.id]);
    expect(await ids('tags=team:nobody')).toEqual([]);
    expect(await ids('ai_provider=groq')).toEqual([b.id]);
    expect(await ids('status=disabled')).toEqual([b.id]);
    expect(await ids(`workspace_id=${ws.slug}`)).toEqual([c.id]);
    const page = await cp.call('get', '/integrations?tags=team:filters&page_size=1&current_page=1');
    expect(page.body).toMatchObject({ object: 'list', total: 2 });
    expect(page.body.data.map((i: { id: string }) => i.id)).toEqual([a.id]);
    for (const bad of ['tags=nocolon', 'status=gone', 'ai_provider=nope', 'page_size=-1', 'colour=red']) {
      expectError(await cp.call('get', `/integrations?${bad}`), 400, 'AB01');
    }
    expectError(await cp.call('get', `/integrations?workspace_id=${randomUUID()}`), 404, 'AB08');

    expect((await cp.call('get', `/integrations/${a.slug}`)).body.id).toBe(a.id);
    expect((await cp.call('get', `/integrations/${a.id}`)).body).toEqual(a);
    expectError(await cp.call('get', `/integrations/${randomUUID()}`), 404, 'AB08');
    expectError(await cp.call('get', '/integrations/bad%20slug'), 400, 'AB01', 'path.integrationId');
  });

  test('update: fields, credential rotation, refusals; ai_provider never changes', async ({ cp, pg }) => {
    const created = await createIntegration(cp, { name: 'Rotate me' });
    const rotated = await cp.call('put', `/integrations/${created.id}`, {
      body: { credentials: { api_key: ROTATED_KEY }, name: 'Rotated', tags: { v: '2' }, usage_limits: null },
    });
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    expect(rotated.body).toMatchObject({
      name: 'Rotated',
      slug: created.slug,
      credentials: { api_key: '****rot9' },
      tags: { v: '2' },
    });
    expectMasked(rotated.body, ROTATED_KEY);
    const changes = await entityChanges(pg.pool, created.id, EntityKind.INTEGRATION);
    expect(changes.map((c) => c.version)).toEqual([1, 2]);
    const latest = changes[1]?.body?.$case === 'integration' ? changes[1].body.value : undefined;
    expect(openCredentials(latest?.encryptedCredentials ?? Buffer.alloc(0), created.id)).toEqual({
      api_key: ROTATED_KEY,
    });

    const kept = await cp.call('put', `/integrations/${created.id}`, { body: { status: 'disabled' } });
    expect(kept.body).toMatchObject({ status: 'disabled', credentials: { api_key: '****rot9' } });
    expectError(
      await cp.call('put', `/integrations/${created.id}`, { body: { ai_provider: 'anthropic' } }),
      400,
      'AB01',
      'body',
    );
    expectError(await cp.call('put', `/integrations/${created.id}`, { body: {} }), 400, 'AB01');
    expectError(
      await cp.call('put', `/integrations/${created.id}`, { body: { credentials: null } }),
      400,
      'AB01',
      'body.credentials',
    );
    expectError(
      await cp.call('put', `/integrations/${created.id}`, {
        body: { credentials: { api_key: 'k', region: 'x' } },
      }),
      400,
      'AB01',
      'body.credentials',
    );
    const other = await createIntegration(cp, { name: 'Other slug' });
    expectError(
      await cp.call('put', `/integrations/${created.id}`, { body: { slug: other.slug } }),
      409,
      'AB07',
      'body.slug',
    );
    expect((await entityChanges(pg.pool, created.id, EntityKind.INTEGRATION)).length).toBe(3);
    const audits = (await auditEvents(pg.pool)).filter(
      (a) => a.action === 'integrations.update' && a.resourceId === created.id,
    );
    expect(audits.map((a) => a.statusCode)).toEqual([200, 200, 400, 400, 400, 400, 409]);
    await expectSecretsNowhere(pg.pool, [OPENAI_KEY, ROTATED_KEY]);
  });

  test('delete: 200 {}, tombstones for it and its providers, then 404', async ({ cp, pg }) => {
    const ws = await workspace(cp, 'Delete team');
    const created = await createIntegration(cp, { name: 'Delete me', workspaces: [{ id: ws.id }] });
    const providers = await cp.call('get', `/providers?integration_id=${created.id}`);
    expect(providers.body.total).toBe(1);
    const providerId = providers.body.data[0].id;

    const deleted = await cp.call('delete', `/integrations/${created.slug}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({});
    expectError(await cp.call('get', `/integrations/${created.id}`), 404, 'AB08');
    expectError(await cp.call('delete', `/integrations/${created.id}`), 404, 'AB08');
    expectError(await cp.call('get', `/providers/${providerId}`), 404, 'AB08');
    const last = (await entityChanges(pg.pool, created.id)).at(-1);
    expect(last).toMatchObject({ kind: EntityKind.INTEGRATION, tombstone: true, version: 2 });
    const providerTombstones = (await entityChanges(pg.pool, providerId)).filter((e) => e.tombstone);
    expect(providerTombstones.map((e) => e.kind).sort()).toEqual([
      EntityKind.PROVIDER,
      EntityKind.VIRTUAL_KEY,
    ]);
    const audit = (await auditEvents(pg.pool)).find((a) => a.action === 'integrations.delete');
    expect(audit).toMatchObject({ resourceId: created.id, outcome: AuditOutcome.SUCCESS });
  });

  test('refused credentials are never echoed: not in errors, audit records or change events', async ({
    cp,
    pg,
  }) => {
    const CANARY = 'sk-canary-7f3a9c1e5b2d4f60-zzzz';
    const existing = await createIntegration(cp, { name: 'Canary target' });
    const attempts: [method: string, path: string, body: Record<string, unknown>][] = [
      ['post', '/integrations', { credentials: { api_key: `${CANARY}\r\nx-injected: 1` } }],
      ['post', '/integrations', { credentials: { api_key: `${CANARY}${'x'.repeat(5000)}` } }],
      ['post', '/integrations', { credentials: { api_key: `  ${CANARY}` } }],
      ['post', '/integrations', { credentials: { api_key: OPENAI_KEY, password: CANARY } }],
      [
        'post',
        '/integrations',
        { credentials: { api_key: OPENAI_KEY, custom_headers: { 'x-a': `${CANARY}\n` } } },
      ],
      ['post', '/integrations', { credentials: { api_key: OPENAI_KEY, custom_headers: { host: CANARY } } }],
      ['post', '/integrations', { ai_provider: 'bedrock', credentials: { api_key: CANARY } }],
      ['post', '/integrations', { credentials: CANARY }],
      ['put', `/integrations/${existing.id}`, { credentials: { api_key: `${CANARY}\u0000` } }],
      ['put', `/integrations/${existing.id}`, { credentials: { api_key: CANARY }, ai_provider: 'anthropic' }],
    ];
    for (const [method, path, body] of attempts) {
      const response = await cp.call(method, path, {
        body: method === 'post' ? { name: 'Canary', ai_provider: 'openai', ...body } : body,
      });
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      expect(response.body.error.code).toBe('AB01');
      expect(JSON.stringify(response.body)).not.toContain(CANARY);
    }
    const audits = await auditEvents(pg.pool);
    expect(audits.filter((a) => a.outcome === AuditOutcome.FAILURE).length).toBeGreaterThan(0);
    for (const audit of audits) expect(JSON.stringify(audit)).not.toContain(CANARY);
    await expectSecretsNowhere(pg.pool, [CANARY]);
  });
});
