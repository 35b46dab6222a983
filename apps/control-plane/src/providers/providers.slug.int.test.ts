// Providers addressed by slug (spec 5.2: `@<slug>` names a provider), as configs and guardrails are:
// GET, PUT and DELETE accept the slug; a slug two workspaces share needs `workspace_id`.
import { describe, expect } from 'vitest';
import { test } from '../../test/harness.js';
import {
  ALL_PROVIDER_SCOPES,
  createIntegration,
  expectError,
  serviceKey,
  workspace,
} from '../integrations/integrations.test-support.js';

describe('providers by slug', () => {
  test('GET, PUT and DELETE take the slug; workspace_id picks among workspaces; others see 404', async ({
    cp,
  }) => {
    const a = await workspace(cp, 'Slug A');
    const b = await workspace(cp, 'Slug B');
    const integration = await createIntegration(cp, { name: 'Slug OpenAI', allow_all_workspaces: true });
    const make = async (ws: string) => {
      const res = await cp.call('post', '/providers', {
        body: { workspace_id: ws, integration_id: integration.id, slug: 'shared-slug' },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id as string;
    };
    const inA = await make(a.id);
    const inB = await make(b.id);

    // An organisation caller: the slug alone is ambiguous, the workspace (id or slug) settles it.
    expectError(await cp.call('get', '/providers/shared-slug'), 400, 'AB01', 'query.workspace_id');
    const viaA = await cp.call('get', `/providers/shared-slug?workspace_id=${a.slug}`);
    expect(viaA.status, JSON.stringify(viaA.body)).toBe(200);
    expect(viaA.body).toMatchObject({ id: inA, workspace_id: a.id, slug: 'shared-slug' });
    const byId = await cp.call('get', `/providers/${inB}`);
    expect(byId.body).toMatchObject({ id: inB, workspace_id: b.id });

    // A workspace caller sees its own provider under the slug, and nothing of another workspace.
    const keyA = await serviceKey(cp, a.id, ALL_PROVIDER_SCOPES);
    const own = await cp.call('get', '/providers/shared-slug', { key: keyA });
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect(own.body.id).toBe(inA);
    expectError(
      await cp.call('get', `/providers/shared-slug?workspace_id=${b.id}`, { key: keyA }),
      404,
      'AB08',
    );
    expectError(await cp.call('get', `/providers/${inB}`, { key: keyA }), 404, 'AB08');
    expectError(await cp.call('get', '/providers/no-such-slug', { key: keyA }), 404, 'AB08');
    expectError(
      await cp.call('get', '/providers/not%20a%20slug', { key: keyA }),
      400,
      'AB01',
      'path.providerId',
    );

    const renamed = await cp.call('put', '/providers/shared-slug', { key: keyA, body: { note: 'by slug' } });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body).toMatchObject({ id: inA, note: 'by slug' });
    expect((await cp.call('get', `/providers/${inB}`)).body.note).not.toBe('by slug');

    const removed = await cp.call('delete', `/providers/shared-slug?workspace_id=${b.slug}`);
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expectError(await cp.call('get', `/providers/${inB}`), 404, 'AB08');
    expect((await cp.call('get', `/providers/${inA}`)).status).toBe(200);
  });
});
