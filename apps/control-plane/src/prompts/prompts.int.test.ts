// Prompts end to end on the admin API: partials included by name, immutable versions (`patch` edits
// the latest in place), publishing, labels moved between versions, render with variables, loops
// through partials refused when saved or published, collections, filters, deletes, change events.
import { AuditOutcome, EntityKind } from '@aigw/proto';
import { describe, expect } from 'vitest';
import { test } from '../../test/harness.js';
import { auditEvents } from '../../test/outbox-rows.js';
import { created, expectError, lastChange, workspace } from './prompts.test-support.js';

const MESSAGES = JSON.stringify([
  { role: 'system', content: '{{> tone}}' },
  { role: 'user', content: 'Summarise: {{text}}' },
]);

describe('prompts', () => {
  test('versions, patch, publish, labels and render', async ({ cp, pg }) => {
    const ws = await workspace(cp, 'Prompts');
    const tone = await created(cp, '/prompt-partials', {
      name: 'Tone',
      slug: 'tone',
      workspace_id: ws.id,
      string: 'Be {{style}}.',
    });
    expect([tone.object, tone.latest_version, tone.default_version]).toEqual(['prompt_partial', 1, 1]);
    const prompt = await created(cp, '/prompts', {
      name: 'Summary',
      workspace_id: ws.id,
      string: MESSAGES,
      model: 'gpt-4o-mini',
      parameters: { max_tokens: 40 },
      variables: { style: 'brief' },
    });
    expect(prompt).toMatchObject({
      object: 'prompt',
      slug: 'summary',
      latest_version: 1,
      default_version: 1,
    });
    expect(prompt.version).toMatchObject({ version: 1, string: MESSAGES, model: 'gpt-4o-mini' });

    // A new version without `patch` is made of what is sent: the template is required.
    expectError(
      await cp.call('put', `/prompts/${prompt.id}`, { body: { model: 'x' } }),
      400,
      'AB01',
      'body.string',
    );
    const v2 = await cp.call('put', '/prompts/summary', {
      body: { string: 'Plain {{text}} v2', model: 'gpt-4o', version_description: 'second' },
    });
    expect(v2.status, JSON.stringify(v2.body)).toBe(200);
    expect([v2.body.latest_version, v2.body.default_version]).toEqual([2, 1]);
    const v2row = await cp.call('get', `/prompts/${prompt.id}/versions/2`);
    expect(v2row.body).toMatchObject({ string: 'Plain {{text}} v2', model: 'gpt-4o', parameters: {} });

    // patch: true changes the latest version in place; missing fields are kept.
    const patched = await cp.call('put', `/prompts/${prompt.id}`, {
      body: { patch: true, parameters: { n: 1 } },
    });
    expect(patched.body.latest_version).toBe(2);
    const v2after = (await cp.call('get', `/prompts/${prompt.id}/versions/2`)).body;
    expect(v2after).toMatchObject({ string: 'Plain {{text}} v2', model: 'gpt-4o', parameters: { n: 1 } });
    expect((await cp.call('get', `/prompts/${prompt.id}/versions`)).body.total).toBe(2);

    // Labels must exist in the workspace, then point at versions and move.
    expectError(
      await cp.call('put', `/prompts/${prompt.id}/labels/production`, { body: { version: 1 } }),
      404,
      'AB02',
    );
    await created(cp, '/labels', { name: 'production', workspace_id: ws.id });
    const labelled = await cp.call('put', `/prompts/${prompt.id}/labels/production`, {
      body: { version: 1 },
    });
    expect(labelled.body.labels).toEqual({ production: 1 });
    expectError(
      await cp.call('put', `/prompts/${prompt.id}/labels/production`, { body: { version: 9 } }),
      404,
      'AB08',
    );
    const render1 = await cp.call('post', '/prompts/summary@production/render', {
      body: { variables: { text: 'the report' }, max_tokens: 5 },
    });
    expect(render1.status, JSON.stringify(render1.body)).toBe(200);
    expect(render1.body).toMatchObject({ version: 1, label: 'production' });
    expect(render1.body.data).toEqual({
      model: 'gpt-4o-mini',
      max_tokens: 5,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Summarise: the report' },
      ],
    });
    await cp.call('put', `/prompts/${prompt.id}/labels/production`, { body: { version: 2 } });
    const render2 = await cp.call('post', '/prompts/summary@production/render', {
      body: { variables: { text: 't' } },
    });
    expect(render2.body.data.messages).toEqual([{ role: 'user', content: 'Plain t v2' }]);
    expect(
      (await cp.call('post', '/prompts/summary@1/render', { body: { variables: { text: 't' } } })).body
        .version,
    ).toBe(1);

    // Missing required variables are a 400 naming them.
    const missing = await cp.call('post', `/prompts/${prompt.id}/render`, { body: { variables: {} } });
    expectError(missing, 400, 'AB01', 'body.variables');
    expect(missing.body.error.message).toContain('missing required variables: text');
    expectError(await cp.call('post', '/prompts/summary@staging/render', { body: {} }), 404, 'AB08');

    // Publish: the default version changes.
    const published = await cp.call('put', `/prompts/${prompt.id}/makeDefault`, { body: { version: 2 } });
    expect(published.body.default_version).toBe(2);
    expect(published.body.version.version).toBe(2);

    // Every write reached the outbox as a PROMPT entity with all versions and labels.
    const change = await lastChange(pg.pool, prompt.id, EntityKind.PROMPT);
    expect(change?.body?.$case).toBe('prompt');
    if (change?.body?.$case !== 'prompt') throw new Error('no prompt body');
    expect(change.body.value.defaultVersion).toBe(2);
    expect(change.body.value.labels).toEqual({ production: 2 });
    expect(change.body.value.versions.map((v) => [v.version, v.template])).toEqual([
      [1, MESSAGES],
      [2, 'Plain {{text}} v2'],
    ]);
    expect(JSON.parse(change.body.value.versions[1]?.parametersJson ?? '')).toEqual({ n: 1 });

    // A label in use cannot be deleted; removing it from the prompt frees it.
    expectError(await cp.call('delete', '/labels/production?workspace_id=' + ws.id), 409, 'AB07');
    expect((await cp.call('delete', `/prompts/${prompt.id}/labels/production`)).body.labels).toEqual({});
    expect((await cp.call('delete', `/labels/production?workspace_id=${ws.id}`)).status).toBe(200);

    // Deleting leaves a tombstone for gateways.
    expect((await cp.call('delete', `/prompts/${prompt.id}`)).status).toBe(200);
    expectError(await cp.call('get', `/prompts/${prompt.id}`), 404, 'AB08');
    expect((await lastChange(pg.pool, prompt.id, EntityKind.PROMPT))?.tombstone).toBe(true);

    // Every write was audited under its action, in the workspace; refused ones as failures.
    const audit = await auditEvents(pg.pool);
    const succeeded = (id: string) =>
      audit
        .filter((a) => a.resourceId === id && a.outcome === AuditOutcome.SUCCESS)
        .map((a) => [a.action, a.workspaceId]);
    expect(new Set(succeeded(prompt.id).map(([action]) => action))).toEqual(
      new Set([
        'prompts.create',
        'prompts.update',
        'prompts.label',
        'prompts.publish',
        'prompts.unlabel',
        'prompts.delete',
      ]),
    );
    expect(succeeded(prompt.id).every(([, workspaceId]) => workspaceId === ws.id)).toBe(true);
    expect(succeeded(tone.id)).toEqual([['prompt_partials.create', ws.id]]);
    expect(audit.filter((a) => a.action === 'labels.delete').map((a) => [a.outcome, a.statusCode])).toEqual([
      [AuditOutcome.FAILURE, 409],
      [AuditOutcome.SUCCESS, 200],
    ]);
  });

  test('a template that includes itself or loops through partials is refused when saved or published', async ({
    cp,
  }) => {
    const ws = await workspace(cp, 'Loops');
    const self = await cp.call('post', '/prompt-partials', {
      body: { name: 'Self', slug: 'self', workspace_id: ws.id, string: 'x {{> self}}' },
    });
    expectError(self, 400, 'AB01', 'body.string');
    expect(self.body.error.message).toContain('self -> self');
    expectError(await cp.call('get', `/prompt-partials/self?workspace_id=${ws.id}`), 404, 'AB08');

    await created(cp, '/prompt-partials', { name: 'A', slug: 'a', workspace_id: ws.id, string: 'a' });
    await created(cp, '/prompt-partials', { name: 'B', slug: 'b', workspace_id: ws.id, string: 'b {{> a}}' });
    // A's new version would include B, which includes A.
    const loop = await cp.call('put', `/prompt-partials/a?workspace_id=${ws.id}`, {
      body: { string: '{{> b}}' },
    });
    expectError(loop, 400, 'AB01', 'body.string');
    expect(loop.body.error.message).toContain('a -> b -> a');
    // Made as an unpublished version of B's dependency first, then published: refused at publish.
    await created(cp, '/prompt-partials', { name: 'C', slug: 'c', workspace_id: ws.id, string: 'c' });
    const cv2 = await cp.call('put', `/prompt-partials/c?workspace_id=${ws.id}`, { body: { string: 'c2' } });
    expect(cv2.body.latest_version).toBe(2);
    await cp.call('put', `/prompt-partials/a?workspace_id=${ws.id}`, {
      body: { patch: true, string: 'a {{> c}}' },
    });
    const cv3 = await cp.call('put', `/prompt-partials/c?workspace_id=${ws.id}`, {
      body: { string: '{{> a}}' },
    });
    expectError(cv3, 400, 'AB01', 'body.string');
    // An unknown partial is refused in prompts and partials alike.
    const unknown = await cp.call('post', '/prompts', {
      body: { name: 'P', workspace_id: ws.id, string: 'hi {{> nowhere}}' },
    });
    expectError(unknown, 400, 'AB01', 'body.string');
    expect(unknown.body.error.message).toContain('unknown partial "nowhere"');
    // A malformed message array and invalid Mustache are refused too.
    expectError(
      await cp.call('post', '/prompts', {
        body: { name: 'P', workspace_id: ws.id, string: '[{"role":"x"}]' },
      }),
      400,
      'AB01',
      'body.string',
    );
    expectError(
      await cp.call('post', '/prompts', { body: { name: 'P', workspace_id: ws.id, string: '{{#a}} open' } }),
      400,
      'AB01',
      'body.string',
    );
  });

  test('a partial a prompt or partial includes cannot be deleted (409 naming them); unused, it can', async ({
    cp,
  }) => {
    const ws = await workspace(cp, 'Partial users');
    await created(cp, '/prompt-partials', {
      name: 'Tone_x',
      slug: 'tone_x',
      workspace_id: ws.id,
      string: 'be kind',
    });
    await created(cp, '/prompt-partials', {
      name: 'Tone',
      slug: 'tone',
      workspace_id: ws.id,
      string: 'be nice',
    });
    await created(cp, '/prompt-partials', {
      name: 'Outer',
      slug: 'outer',
      workspace_id: ws.id,
      string: '{{> tone}}!',
    });
    await created(cp, '/prompts', {
      name: 'Reply',
      slug: 'reply',
      workspace_id: ws.id,
      string: '{{> tone}} {{q}}',
    });
    const refused = await cp.call('delete', `/prompt-partials/tone?workspace_id=${ws.id}`);
    expectError(refused, 409, 'AB07');
    expect(refused.body.error.message).toContain('partial outer, prompt reply');
    expect((await cp.call('get', `/prompt-partials/tone?workspace_id=${ws.id}`)).status).toBe(200);
    // `tone_x` shares a prefix with `tone` but nothing includes it ('_' is no wildcard here).
    expect((await cp.call('delete', `/prompt-partials/tone_x?workspace_id=${ws.id}`)).status).toBe(200);
    expect((await cp.call('delete', `/prompts/reply?workspace_id=${ws.id}`)).status).toBe(200);
    expect((await cp.call('delete', `/prompt-partials/outer?workspace_id=${ws.id}`)).status).toBe(200);
    expect((await cp.call('delete', `/prompt-partials/tone?workspace_id=${ws.id}`)).status).toBe(200);
  });

  test('publishing a partial version that would close a loop is refused', async ({ cp }) => {
    const ws = await workspace(cp, 'Publish loop');
    await created(cp, '/prompt-partials', { name: 'X', slug: 'x', workspace_id: ws.id, string: 'x' });
    // X v2 includes Y (Y plain): fine, unpublished.
    await created(cp, '/prompt-partials', { name: 'Y', slug: 'y', workspace_id: ws.id, string: 'y' });
    expect(
      (await cp.call('put', `/prompt-partials/x?workspace_id=${ws.id}`, { body: { string: '{{> y}}' } }))
        .status,
    ).toBe(200);
    // Y v2 includes X, whose published v1 is plain: fine, and published.
    await cp.call('put', `/prompt-partials/y?workspace_id=${ws.id}`, { body: { string: '{{> x}}' } });
    expect(
      (await cp.call('put', `/prompt-partials/y/makeDefault?workspace_id=${ws.id}`, { body: { version: 2 } }))
        .status,
    ).toBe(200);
    // Publishing X v2 now would make x -> y -> x.
    const res = await cp.call('put', `/prompt-partials/x/makeDefault?workspace_id=${ws.id}`, {
      body: { version: 2 },
    });
    expectError(res, 400, 'AB01', 'body.version');
    expect(res.body.error.message).toContain('x -> y -> x');
  });

  test('collections nest, filter lists, refuse loops and non-empty deletes', async ({ cp }) => {
    const ws = await workspace(cp, 'Folders');
    const top = await created(cp, '/collections', { name: 'Support', workspace_id: ws.id });
    const inner = await created(cp, '/collections', {
      name: 'Billing',
      workspace_id: ws.id,
      parent_collection_id: top.id,
    });
    expect(inner.parent_collection_id).toBe(top.id);
    expectError(
      await cp.call('put', `/collections/${top.id}`, { body: { parent_collection_id: inner.id } }),
      400,
      'AB01',
    );
    const p1 = await created(cp, '/prompts', {
      name: 'One',
      workspace_id: ws.id,
      string: 'one',
      collection_id: inner.id,
    });
    await created(cp, '/prompts', { name: 'Two', workspace_id: ws.id, string: 'two' });
    const inInner = await cp.call('get', `/prompts?collection_id=${inner.id}`);
    expect(inInner.body.data.map((p: { id: string }) => p.id)).toEqual([p1.id]);
    expect((await cp.call('get', `/prompts?workspace_id=${ws.id}&name=Two`)).body.total).toBe(1);
    expect((await cp.call('get', `/prompts?workspace_id=${ws.id}&page_size=1`)).body).toMatchObject({
      total: 2,
    });
    expect((await cp.call('get', `/collections?parent_collection_id=${top.id}`)).body.total).toBe(1);
    expectError(await cp.call('delete', `/collections/${top.id}`), 409, 'AB07');
    expectError(await cp.call('delete', `/collections/${inner.id}`), 409, 'AB07');
    await cp.call('put', `/prompts/${p1.id}`, { body: { collection_id: null } });
    expect((await cp.call('delete', `/collections/${inner.id}`)).status).toBe(200);
    expect((await cp.call('delete', `/collections/${top.id}`)).status).toBe(200);
    // Archived prompts leave the default list.
    await cp.call('put', `/prompts/${p1.id}`, { body: { status: 'archived' } });
    expect((await cp.call('get', `/prompts?workspace_id=${ws.id}`)).body.total).toBe(1);
    expect((await cp.call('get', `/prompts?workspace_id=${ws.id}&status=active,archived`)).body.total).toBe(
      2,
    );
  });

  test('templates and variables are data: prototype members are missing variables, injected tags stay text', async ({
    cp,
  }) => {
    const ws = await workspace(cp, 'Template injection');
    const render = async (string: string, variables: Record<string, unknown>) => {
      const prompt = await created(cp, '/prompts', { name: 'Injection', workspace_id: ws.id, string });
      return cp.call('post', `/prompts/${prompt.id}/render`, { body: { variables } });
    };
    // A variable value holding template syntax is rendered as literal text, never evaluated.
    const injected = "{{constructor.constructor('return process')()}} {{#__proto__}}x{{/__proto__}}";
    const literal = await render('Q: {{q}}', { q: injected });
    expect(literal.status, JSON.stringify(literal.body)).toBe(200);
    expect(literal.body.data.messages).toEqual([{ role: 'user', content: `Q: ${injected}` }]);
    // Names of Object.prototype members are variables like any other: missing unless given...
    for (const name of ['constructor', '__proto__', 'toString', '__defineGetter__', 'hasOwnProperty']) {
      const missing = await render(`{{${name}}}`, {});
      expectError(missing, 400, 'AB01', 'body.variables');
      expect(missing.body.error.message).toBe(`body.variables: missing required variables: ${name}`);
    }
    // ...and never reach the prototype, inside nested values or sections either.
    const nested = await render(
      '{{#__proto__}}p{{/__proto__}}{{o.constructor}}{{o.__defineGetter__}}{{#o}}{{__defineSetter__}}{{/o}}{{l.length}}{{#l}}{{.}}{{/l}}',
      { o: { a: 1 }, l: ['x', 'y'] },
    );
    expect(nested.status, JSON.stringify(nested.body)).toBe(200);
    expect(nested.body.data.messages).toEqual([{ role: 'user', content: '2xy' }]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
