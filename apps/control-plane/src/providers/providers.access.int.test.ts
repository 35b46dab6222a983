// Who may call the provider routes: workspace-bound callers see only their workspace (404 for
// others), members only read, and every route needs its scope.
import { describe, expect } from 'vitest';
import { test } from '../../test/harness.js';
import { tenant, userKey } from '../api-keys/api-keys.test-support.js';
import {
  ALL_PROVIDER_SCOPES,
  createIntegration,
  expectError,
  serviceKey,
  workspace,
} from '../integrations/integrations.test-support.js';

describe('providers access', () => {
  test('isolation, roles and scopes: other workspaces are 404, members read only, scopes enforced', async ({
    cp,
    pg,
  }) => {
    const a = await workspace(cp, 'Iso A');
    const b = await workspace(cp, 'Iso B');
    const integration = await createIntegration(cp, {
      name: 'Iso',
      workspaces: [{ id: a.id }, { id: b.id }],
    });
    const all = (await cp.call('get', `/providers?integration_id=${integration.id}`)).body.data as {
      id: string;
      workspace_id: string;
    }[];
    const inA = all.find((p) => p.workspace_id === a.id)?.id ?? '';
    const inB = all.find((p) => p.workspace_id === b.id)?.id ?? '';
    const keyA = await serviceKey(cp, a.id, ALL_PROVIDER_SCOPES);

    expect((await cp.call('get', `/providers/${inA}`, { key: keyA })).status).toBe(200);
    expectError(await cp.call('get', `/providers/${inB}`, { key: keyA }), 404, 'AB08');
    expectError(
      await cp.call('put', `/providers/${inB}`, { key: keyA, body: { name: 'mine' } }),
      404,
      'AB08',
    );
    expectError(await cp.call('delete', `/providers/${inB}`, { key: keyA }), 404, 'AB08');
    expectError(await cp.call('get', `/providers?workspace_id=${b.id}`, { key: keyA }), 404, 'AB08');
    expectError(
      await cp.call('post', '/providers', {
        key: keyA,
        body: { workspace_id: b.id, integration_id: integration.id, slug: 'sneak' },
      }),
      404,
      'AB08',
    );
    const listed = await cp.call('get', '/providers', { key: keyA });
    expect(listed.body.data.map((p: { workspace_id: string }) => p.workspace_id)).toEqual([a.id]);

    const people = await tenant(cp, pg.pool);
    const member = await people.user('member');
    await people.member(a.id, member, 'member');
    const memberKey = (await userKey(cp, a.id, member, { scopes: ALL_PROVIDER_SCOPES })).key;
    expect((await cp.call('get', '/providers', { key: memberKey })).body.total).toBe(1);
    expectError(
      await cp.call('post', '/providers', {
        key: memberKey,
        body: { integration_id: integration.id, slug: 'm' },
      }),
      403,
      'AB03',
    );
    expectError(
      await cp.call('put', `/providers/${inA}`, { key: memberKey, body: { name: 'm' } }),
      403,
      'AB03',
    );
    expectError(await cp.call('delete', `/providers/${inA}`, { key: memberKey }), 403, 'AB03');

    const readOnly = await serviceKey(cp, a.id, ['providers.read']);
    expect((await cp.call('get', `/providers/${inA}`, { key: readOnly })).status).toBe(200);
    expectError(await cp.call('get', '/providers', { key: readOnly }), 403, 'AB03');
    expectError(
      await cp.call('put', `/providers/${inA}`, { key: readOnly, body: { name: 'r' } }),
      403,
      'AB03',
    );
    expectError(await cp.call('delete', `/providers/${inA}`, { key: readOnly }), 403, 'AB03');
    expect((await cp.call('get', `/providers/${inA}`)).body.name).toBe('Iso');
  });
});
