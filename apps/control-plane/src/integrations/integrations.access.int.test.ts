// Who may call the integration routes (organisation level, scopes, other organisations), what
// happens without MASTER_KEY, and the OpenAPI coverage of the three credential families.
import { randomUUID } from 'node:crypto';
import { AuditOutcome } from '@aigw/proto';
import { describe, expect } from 'vitest';
import { ADMIN_KEY, apiClient, startControlPlane, test } from '../../test/harness.js';
import { auditEvents } from '../../test/outbox-rows.js';
import { integrationProviders } from '../providers/integration-providers.js';
import { providerRoutes } from '../providers/providers.routes.js';
import { virtualKeyRoutes } from '../virtual-keys/virtual-keys.routes.js';
import { integrationRoutes } from './integrations.routes.js';
import {
  adminKeyWithout,
  createIntegration,
  expectError,
  OPENAI_KEY,
  serviceKey,
  workspace,
} from './integrations.test-support.js';

describe('integrations access', () => {
  test('organisation-level only: workspace keys are 403, missing scopes are 403, other organisations 404', async ({
    cp,
    pg,
  }) => {
    const created = await createIntegration(cp, { name: 'Guarded' });
    const ws = await workspace(cp, 'Guard team');
    const wsKey = await serviceKey(cp, ws.id, ['providers.list', 'providers.create']);
    expectError(await cp.call('get', '/integrations', { key: wsKey }), 403, 'AB03');
    expectError(await cp.call('get', `/integrations/${created.id}`, { key: wsKey }), 403, 'AB03');
    const create = await cp.call('post', '/integrations', {
      key: wsKey,
      body: { name: 'x', ai_provider: 'openai', credentials: { api_key: OPENAI_KEY } },
    });
    expectError(create, 403, 'AB03');

    const narrow = await adminKeyWithout(cp, ['integrations.update', 'integrations.delete']);
    expect((await cp.call('get', `/integrations/${created.id}`, { key: narrow })).status).toBe(200);
    expectError(
      await cp.call('put', `/integrations/${created.id}`, { key: narrow, body: { name: 'n' } }),
      403,
      'AB03',
    );
    expectError(await cp.call('delete', `/integrations/${created.id}`, { key: narrow }), 403, 'AB03');
    const refused = (await auditEvents(pg.pool)).filter(
      (a) => a.outcome === AuditOutcome.FAILURE && a.statusCode === 403,
    );
    expect(refused.map((a) => a.action)).toEqual(
      expect.arrayContaining(['integrations.create', 'integrations.update', 'integrations.delete']),
    );

    // Another organisation's integration: invisible by id and by slug.
    const otherOrg = randomUUID();
    const foreign = randomUUID();
    await pg.pool.query('insert into control.organisations (id, name, slug) values ($1, $2, $3)', [
      otherOrg,
      'Other',
      `other-${otherOrg.slice(0, 8)}`,
    ]);
    await pg.pool.query(
      "insert into control.integrations (id, organisation_id, name, slug, ai_provider) values ($1, $2, 'F', 'foreign', 'ollama')",
      [foreign, otherOrg],
    );
    for (const path of [`/integrations/${foreign}`, '/integrations/foreign']) {
      expectError(await cp.call('get', path), 404, 'AB08');
      expectError(await cp.call('put', path, { body: { name: 'mine' } }), 404, 'AB08');
      expectError(await cp.call('delete', path), 404, 'AB08');
    }
    const listed = await cp.call('get', '/integrations?page_size=500');
    expect(listed.body.data.some((i: { id: string }) => i.id === foreign)).toBe(false);
  });

  test('without MASTER_KEY, credentials are refused with 500 AB04 and nothing is stored', async ({
    pg,
    nats,
  }) => {
    const { app } = startControlPlane({ pg, nats }, { MASTER_KEY: '' });
    await app.start();
    try {
      const call = apiClient(`http://127.0.0.1:${app.ports.http}`, ADMIN_KEY);
      const refused = await call('post', '/integrations', {
        body: { name: 'No key', ai_provider: 'openai', credentials: { api_key: OPENAI_KEY } },
      });
      expectError(refused, 500, 'AB04');
      expect(refused.body.error.message).toContain('MASTER_KEY');
      expect((await call('get', '/integrations/no-key')).status).toBe(404);
      const local = await call('post', '/integrations', {
        body: {
          name: 'Local ollama',
          ai_provider: 'ollama',
          options: { custom_host: 'http://ollama:11434' },
        },
      });
      expect(local.status).toBe(201);
      expect(local.body.credentials).toBeNull();
    } finally {
      await app.stop();
    }
  });

  test('the OpenAPI document covers every integration, provider and virtual-key route', async ({ cp }) => {
    const doc = (await cp.call('get', '/openapi.json', { key: null })).body;
    const routes = [...integrationRoutes(integrationProviders), ...providerRoutes, ...virtualKeyRoutes];
    expect(routes.length).toBe(17);
    for (const route of routes) {
      const operation = doc.paths[route.path.replace(/:(\w+)/g, '{$1}')]?.[route.method];
      expect(operation, `${route.method} ${route.path}`).toMatchObject({ 'x-required-scope': route.scope });
    }
    const create = doc.paths['/integrations'].post.requestBody.content['application/json'].schema;
    expect(create.properties.credentials.description).toContain('Write-only');
    expect(create.properties.ai_provider.enum).toContain('azure-openai');
  });
});
