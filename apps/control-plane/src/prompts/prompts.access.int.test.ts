// Who may touch prompts: tenant isolation between workspaces (404, never 403), one scope per route,
// and the workspace prompt settings of spec 2.6 (members view but do not edit by default; managers
// both; either can be turned off per workspace; owners and admins always may).
import { EntityKind } from '@aigw/proto';
import { describe, expect } from 'vitest';
import { test } from '../../test/harness.js';
import { adminKeyWithout } from '../configs/configs.test-support.js';
import {
  created,
  expectError,
  lastChange,
  memberKey,
  PROMPT_SCOPES,
  serviceKey,
  workspace,
} from './prompts.test-support.js';

describe('prompts access', () => {
  test('a key of another workspace never sees or changes its prompts, partials, collections, labels: 404', async ({
    cp,
    pg,
  }) => {
    const a = await workspace(cp, 'Iso A');
    const b = await workspace(cp, 'Iso B');
    const partial = await created(cp, '/prompt-partials', {
      name: 'P',
      slug: 'theirs-p',
      workspace_id: b.id,
      string: 'p',
    });
    const prompt = await created(cp, '/prompts', {
      name: 'Theirs',
      slug: 'theirs',
      workspace_id: b.id,
      string: 'x {{> theirs-p}}',
    });
    const collection = await created(cp, '/collections', { name: 'Theirs C', workspace_id: b.id });
    const label = await created(cp, '/labels', { name: 'production', workspace_id: b.id });
    const key = await serviceKey(cp, a.id, PROMPT_SCOPES);

    for (const ref of [prompt.id, 'theirs']) {
      expectError(await cp.call('get', `/prompts/${ref}`, { key }), 404, 'AB08');
      expectError(await cp.call('get', `/prompts/${ref}/versions`, { key }), 404, 'AB08');
      expectError(await cp.call('get', `/prompts/${ref}/versions/1`, { key }), 404, 'AB08');
      expectError(await cp.call('put', `/prompts/${ref}`, { key, body: { name: 'x' } }), 404, 'AB08');
      expectError(
        await cp.call('put', `/prompts/${ref}/makeDefault`, { key, body: { version: 1 } }),
        404,
        'AB08',
      );
      expectError(
        await cp.call('put', `/prompts/${ref}/labels/production`, { key, body: { version: 1 } }),
        404,
        'AB08',
      );
      expectError(await cp.call('post', `/prompts/${ref}/render`, { key, body: {} }), 404, 'AB08');
      expectError(await cp.call('delete', `/prompts/${ref}`, { key }), 404, 'AB08');
    }
    for (const ref of [partial.id, 'theirs-p']) {
      expectError(await cp.call('get', `/prompt-partials/${ref}`, { key }), 404, 'AB08');
      expectError(
        await cp.call('put', `/prompt-partials/${ref}`, { key, body: { string: 'mine' } }),
        404,
        'AB08',
      );
      expectError(await cp.call('delete', `/prompt-partials/${ref}`, { key }), 404, 'AB08');
    }
    expectError(await cp.call('get', `/collections/${collection.id}`, { key }), 404, 'AB08');
    expectError(await cp.call('delete', `/collections/${collection.id}`, { key }), 404, 'AB08');
    expectError(await cp.call('get', `/labels/${label.id}`, { key }), 404, 'AB08');
    expectError(await cp.call('delete', `/labels/${label.id}`, { key }), 404, 'AB08');
    expectError(await cp.call('get', `/prompts?workspace_id=${b.id}`, { key }), 404, 'AB08');
    expectError(
      await cp.call('post', '/prompts', { key, body: { name: 'x', workspace_id: b.slug, string: 'x' } }),
      404,
      'AB08',
    );
    // Its own workspace cannot include the other workspace's partial either.
    expectError(
      await cp.call('post', '/prompts', { key, body: { name: 'x', string: '{{> theirs-p}}' } }),
      400,
      'AB01',
    );
    // Nor point its prompt at the other workspace's provider or file it in the other's collection.
    const integration = await cp.call('post', '/integrations', {
      body: {
        name: 'Theirs OpenAI',
        ai_provider: 'openai',
        credentials: { api_key: 'sk-theirs-0123456789' },
        workspaces: [{ id: b.id }],
        default_provider_slug: 'theirs-openai',
      },
    });
    expect(integration.status, JSON.stringify(integration.body)).toBe(201);
    const mine = await created(cp, '/prompts', { name: 'Mine', workspace_id: a.id, string: 'mine' });
    expectError(
      await cp.call('post', '/prompts', {
        key,
        body: { name: 'x', string: 'x', provider: '@theirs-openai' },
      }),
      404,
      'AB02',
      'body.provider',
    );
    expectError(
      await cp.call('put', `/prompts/${mine.id}`, {
        key,
        body: { string: 'mine 2', provider: '@theirs-openai' },
      }),
      404,
      'AB02',
      'body.provider',
    );
    for (const ref of [collection.id, collection.slug]) {
      expectError(
        await cp.call('post', '/prompts', { key, body: { name: 'x', string: 'x', collection_id: ref } }),
        404,
        'AB02',
      );
      expectError(
        await cp.call('put', `/prompts/${mine.id}`, { key, body: { collection_id: ref } }),
        404,
        'AB02',
      );
    }
    expect((await lastChange(pg.pool, mine.id, EntityKind.PROMPT))?.version).toBe(1);
    for (const path of ['/prompts', '/prompt-partials', '/collections', '/labels']) {
      const listed = await cp.call('get', `${path}?page_size=500`, { key });
      expect(listed.status, path).toBe(200);
      expect(listed.body.total, path).toBe(path === '/prompts' ? 1 : 0);
    }
    expect((await lastChange(pg.pool, prompt.id, EntityKind.PROMPT))?.version).toBe(1);
    expect((await cp.call('get', `/prompts/${prompt.id}`)).body.name).toBe('Theirs');
  });

  test('each route needs its scope: 403 AB03', async ({ cp }) => {
    const ws = await workspace(cp, 'Scopes');
    const prompt = await created(cp, '/prompts', { name: 'Scoped', workspace_id: ws.id, string: 'x' });
    const partial = await created(cp, '/prompt-partials', { name: 'Part', workspace_id: ws.id, string: 'p' });
    const collection = await created(cp, '/collections', { name: 'C', workspace_id: ws.id });
    const label = await created(cp, '/labels', { name: 'staging', workspace_id: ws.id });
    const id = prompt.id;
    const calls: [string, string, string, unknown?][] = [
      ['prompts.create', 'post', '/prompts', { name: 'x', workspace_id: ws.id, string: 'x' }],
      ['prompts.list', 'get', '/prompts'],
      ['prompts.read', 'get', `/prompts/${id}`],
      ['prompts.read', 'get', `/prompts/${id}/versions`],
      ['prompts.update', 'put', `/prompts/${id}`, { name: 'x' }],
      ['prompts.publish', 'put', `/prompts/${id}/makeDefault`, { version: 1 }],
      ['prompts.publish', 'put', `/prompts/${id}/labels/staging`, { version: 1 }],
      ['prompts.render', 'post', `/prompts/${id}/render`, {}],
      ['prompts.delete', 'delete', `/prompts/${id}`],
      ['prompt_partials.create', 'post', '/prompt-partials', { name: 'x', workspace_id: ws.id, string: 'x' }],
      ['prompt_partials.read', 'get', `/prompt-partials/${partial.id}`],
      ['prompt_partials.update', 'put', `/prompt-partials/${partial.id}`, { string: 'y' }],
      ['prompt_partials.delete', 'delete', `/prompt-partials/${partial.id}`],
      ['collections.create', 'post', '/collections', { name: 'x', workspace_id: ws.id }],
      ['collections.read', 'get', `/collections/${collection.id}`],
      ['collections.delete', 'delete', `/collections/${collection.id}`],
      ['labels.create', 'post', '/labels', { name: 'x', workspace_id: ws.id }],
      ['labels.list', 'get', '/labels'],
      ['labels.delete', 'delete', `/labels/${label.id}`],
    ];
    for (const [scope, method, path, body] of calls) {
      const key = await adminKeyWithout(cp, [scope]);
      const res = await cp.call(method, path, { key, ...(body !== undefined ? { body } : {}) });
      expectError(res, 403, 'AB03');
      expect(res.body.error.message).toContain(scope);
    }
    expect((await cp.call('get', `/prompts/${id}`)).body.name).toBe('Scoped');
  });

  test('workspace prompt settings decide who views and edits (spec 2.6)', async ({ cp, pg }) => {
    const ws = await workspace(cp, 'Settings');
    const prompt = await created(cp, '/prompts', {
      name: 'Guarded',
      workspace_id: ws.id,
      string: 'hi {{x}}',
    });
    await created(cp, '/labels', { name: 'production', workspace_id: ws.id });
    const member = await memberKey(pg.pool, ws.id, PROMPT_SCOPES);
    const manager = await serviceKey(cp, ws.id, PROMPT_SCOPES);

    // Defaults: members view and render, but may not edit, publish or move labels.
    expect((await cp.call('get', `/prompts/${prompt.id}`, { key: member })).status).toBe(200);
    expect(
      (await cp.call('post', `/prompts/${prompt.id}/render`, { key: member, body: { variables: { x: 1 } } }))
        .status,
    ).toBe(200);
    const refusals = [
      cp.call('put', `/prompts/${prompt.id}`, { key: member, body: { string: 'changed' } }),
      cp.call('post', '/prompts', { key: member, body: { name: 'Mine', string: 'x' } }),
      cp.call('put', `/prompts/${prompt.id}/makeDefault`, { key: member, body: { version: 1 } }),
      cp.call('put', `/prompts/${prompt.id}/labels/production`, { key: member, body: { version: 1 } }),
      cp.call('delete', `/prompts/${prompt.id}`, { key: member }),
      cp.call('post', '/prompt-partials', { key: member, body: { name: 'p', string: 'x' } }),
      cp.call('post', '/collections', { key: member, body: { name: 'c' } }),
      cp.call('post', '/labels', { key: member, body: { name: 'mine' } }),
    ];
    for (const res of await Promise.all(refusals)) {
      expectError(res, 403, 'AB03');
      expect(res.body.error.message).toContain('membersWritePrompts=false');
    }
    // Managers edit by default.
    expect(
      (await cp.call('put', `/prompts/${prompt.id}`, { key: manager, body: { string: 'v2 {{x}}' } })).status,
    ).toBe(200);

    // The workspace turns member edits on and manager edits off.
    const set = await cp.call('put', `/workspaces/${ws.id}`, {
      body: { settings: { membersWritePrompts: true, managersWritePrompts: false } },
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(
      (await cp.call('put', `/prompts/${prompt.id}/labels/production`, { key: member, body: { version: 2 } }))
        .status,
    ).toBe(200);
    const managerRefused = await cp.call('put', `/prompts/${prompt.id}`, {
      key: manager,
      body: { name: 'x' },
    });
    expectError(managerRefused, 403, 'AB03');
    expect(managerRefused.body.error.message).toContain('managersWritePrompts=false');

    // Viewing turned off for members: every read is refused, the list too.
    await cp.call('put', `/workspaces/${ws.id}`, { body: { settings: { membersViewPrompts: false } } });
    for (const path of [
      `/prompts/${prompt.id}`,
      '/prompts',
      `/prompts/${prompt.id}/versions`,
      '/labels',
      '/collections',
    ]) {
      const res = await cp.call('get', path, { key: member });
      expectError(res, 403, 'AB03');
      expect(res.body.error.message).toContain('membersViewPrompts=false');
    }
    expectError(
      await cp.call('post', `/prompts/${prompt.id}/render`, { key: member, body: {} }),
      403,
      'AB03',
    );
    // The organisation's admin key always may.
    expect((await cp.call('get', `/prompts/${prompt.id}`)).body.labels).toEqual({ production: 2 });
    expect((await cp.call('get', `/prompts/${prompt.id}`)).body.name).toBe('Guarded');
  });
});
