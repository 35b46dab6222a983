// Guardrail routes end to end: create/list/filter/get/update/delete, organisation-level guardrails,
// validation paths, slugs, change events, audit records and the snapshot.
import { AuditOutcome, EntityKind, EntityStatus } from '@aigw/proto';
import { describe, expect } from 'vitest';
import { test } from '../../test/harness.js';
import { auditEvents } from '../../test/outbox-rows.js';
import { readSnapshot, snapshotEntities } from '../../test/snapshot-client.js';
import {
  expectError,
  GUARDRAIL_SCOPES,
  guardrail,
  lastChange,
  serviceKey,
  workspace,
} from '../configs/configs.test-support.js';

const PII_CHECKS = [
  { id: 'pii', parameters: { categories: ['email'] } },
  { id: 'partner.acme', parameters: { url: 'https://acme.example.com/scan', policyId: 'pol-42' } },
];

describe('guardrails', () => {
  test('create: 201 with normalised checks and actions, a change event and an audit record', async ({
    cp,
    pg,
  }) => {
    const ws = await workspace(cp, 'Guarded');
    const created = await cp.call('post', '/guardrails', {
      body: {
        name: 'PII guard',
        workspace_id: ws.slug,
        checks: PII_CHECKS,
        actions: { deny: true, on_fail: { feedback: { value: -10 } } },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      object: 'guardrail',
      workspace_id: ws.id,
      name: 'PII guard',
      slug: 'pii-guard',
      status: 'active',
      checks: [
        { id: 'pii', parameters: { categories: ['email'] } },
        {
          id: 'partner.acme',
          parameters: {
            url: 'https://acme.example.com/scan',
            headers: {},
            timeout: 10000,
            policyId: 'pol-42',
          },
        },
      ],
      actions: { deny: true, on_fail: { feedback: { value: -10, weight: 1 } } },
      async: false,
      created_by_user_id: null,
    });

    const change = await lastChange(pg.pool, created.body.id, EntityKind.GUARDRAIL);
    expect(change).toMatchObject({
      version: 1,
      tombstone: false,
      organisationId: created.body.organisation_id,
      workspaceId: ws.id,
      body: {
        $case: 'guardrail',
        value: { name: 'PII guard', slug: 'pii-guard', status: EntityStatus.ACTIVE },
      },
    });
    const body = change?.body?.$case === 'guardrail' ? JSON.parse(change.body.value.bodyJson) : undefined;
    expect(body).toEqual({
      checks: created.body.checks,
      actions: created.body.actions,
      async: false,
    });
    const audit = (await auditEvents(pg.pool)).find(
      (a) => a.action === 'guardrails.create' && a.resourceId === created.body.id,
    );
    expect(audit).toMatchObject({
      resourceType: 'guardrail',
      workspaceId: ws.id,
      outcome: AuditOutcome.SUCCESS,
      statusCode: 201,
    });
  });

  test('organisation-level guardrails: made by organisation callers, used but not changed by workspaces', async ({
    cp,
    pg,
  }) => {
    const ws = await workspace(cp, 'Org guard users');
    const org = await guardrail(cp, { name: 'Org wide', slug: 'org-wide' });
    expect(org.workspace_id).toBeNull();
    expect((await lastChange(pg.pool, org.id, EntityKind.GUARDRAIL))?.workspaceId).toBe('');

    const key = await serviceKey(cp, ws.id, GUARDRAIL_SCOPES);
    expect((await cp.call('get', '/guardrails/org-wide', { key })).body.id).toBe(org.id);
    const listed = await cp.call('get', '/guardrails', { key });
    expect(listed.body.data.map((g: { id: string }) => g.id)).toContain(org.id);
    expectError(await cp.call('put', `/guardrails/${org.id}`, { key, body: { name: 'Mine' } }), 403, 'AB03');
    expectError(await cp.call('delete', `/guardrails/${org.id}`, { key }), 403, 'AB03');

    // A workspace key's guardrail belongs to its workspace even without workspace_id.
    const own = await guardrail(cp, { name: 'Own' }, key);
    expect(own.workspace_id).toBe(ws.id);
  });

  test('validation: 400 AB01 naming the field, from the check catalogue and the definition rules', async ({
    cp,
  }) => {
    const cases: [Record<string, unknown>, string][] = [
      [{ checks: [{ id: 'toxicity' }] }, 'body.checks.0.id'],
      [
        { checks: [{ id: 'valid_json' }, { id: 'regex_match', parameters: { pattern: '(a)\\1' } }] },
        'body.checks.1.parameters.pattern',
      ],
      [
        { checks: [{ id: 'partner.acme', parameters: { url: 'https://a.example.com' } }] },
        'body.checks.0.parameters.policyId',
      ],
      [
        { checks: [{ id: 'webhook', parameters: { url: 'https://a.example.com', timeout: 60001 } }] },
        'body.checks.0.parameters.timeout',
      ],
      // Header values Node would refuse to send (ERR_INVALID_CHAR): CR/LF injection, controls, non-Latin-1.
      ...['v\r\nx-injected: 1', 'v\nx', 'a\u0001b', 'del\u007f', 'emoji \u{1F600}'].map(
        (value): [Record<string, unknown>, string] => [
          {
            checks: [
              { id: 'webhook', parameters: { url: 'https://a.example.com', headers: { 'x-a': value } } },
            ],
          },
          'body.checks.0.parameters.headers.x-a',
        ],
      ),
      [{ checks: [] }, 'body.checks'],
      [{ checks: [{ id: 'valid_json' }], async: true, actions: { deny: true } }, 'body.actions.deny'],
      [{ checks: [{ id: 'valid_json' }], actions: { deny: 'yes' } }, 'body.actions.deny'],
      [
        { checks: [{ id: 'valid_json' }], actions: { on_fail: { feedback: { value: 20 } } } },
        'body.actions.on_fail.feedback.value',
      ],
      [{ checks: [{ id: 'valid_json' }], slug: 'Upper Case' }, 'body.slug'],
      [{ checks: [{ id: 'valid_json' }], extra: 1 }, 'body'],
    ];
    for (const [body, param] of cases) {
      const res = await cp.call('post', '/guardrails', { body: { name: 'Bad', ...body } });
      expectError(res, 400, 'AB01', param);
      expect(res.body.error.message.startsWith(param)).toBe(true);
    }
    const ws = await workspace(cp, 'Validated');
    const ok = await guardrail(cp, { workspace_id: ws.id });
    expectError(
      await cp.call('put', `/guardrails/${ok.id}`, { body: { async: true, actions: { deny: true } } }),
      400,
      'AB01',
      'body.actions.deny',
    );
    expectError(await cp.call('put', `/guardrails/${ok.id}`, { body: {} }), 400, 'AB01');
  });

  test('slugs: derived and unique, never shared between a workspace and its organisation', async ({ cp }) => {
    const a = await workspace(cp, 'Slugs A');
    const b = await workspace(cp, 'Slugs B');
    const first = await guardrail(cp, { name: 'Twin', workspace_id: a.id });
    const second = await guardrail(cp, { name: 'Twin', workspace_id: a.id });
    expect([first.slug, second.slug]).toEqual(['twin', 'twin-2']);
    // Another workspace may reuse a slug; the organisation may not, since every workspace sees its slugs.
    expect((await guardrail(cp, { name: 'Twin', workspace_id: b.id, slug: 'twin' })).slug).toBe('twin');
    expectError(
      await cp.call('post', '/guardrails', {
        body: { name: 'T', slug: 'twin', checks: [{ id: 'valid_json' }] },
      }),
      409,
      'AB07',
      'body.slug',
    );
    await guardrail(cp, { name: 'Org only', slug: 'org-only' });
    expectError(
      await cp.call('post', '/guardrails', {
        body: { name: 'T', slug: 'org-only', workspace_id: a.id, checks: [{ id: 'valid_json' }] },
      }),
      409,
      'AB07',
      'body.slug',
    );
    expectError(await cp.call('put', `/guardrails/${second.id}`, { body: { slug: 'twin' } }), 409, 'AB07');

    // An organisation caller's slug may match in several workspaces: workspace_id picks one.
    expectError(await cp.call('get', '/guardrails/twin'), 400, 'AB01', 'query.workspace_id');
    expect((await cp.call('get', `/guardrails/twin?workspace_id=${b.slug}`)).body.workspace_id).toBe(b.id);
    expect((await cp.call('get', `/guardrails/twin?workspace_id=${a.slug}`)).body.id).toBe(first.id);
    expectError(await cp.call('get', '/guardrails/no-such-guardrail'), 404, 'AB08');
  });

  test('list: filters by workspace (its own and organisation ones), status and name, with pagination', async ({
    cp,
  }) => {
    const ws = await workspace(cp, 'Listing');
    const other = await workspace(cp, 'Listing other');
    const mine = await guardrail(cp, { name: 'Listed', workspace_id: ws.id });
    const orgLevel = await guardrail(cp, { name: 'Listed' });
    const elsewhere = await guardrail(cp, { name: 'Listed', workspace_id: other.id });
    const archived = await guardrail(cp, { name: 'Listed', workspace_id: ws.id });
    expect(
      (await cp.call('put', `/guardrails/${archived.id}`, { body: { status: 'archived' } })).status,
    ).toBe(200);

    const ids = async (query: string) =>
      ((await cp.call('get', `/guardrails?name=Listed&${query}`)).body.data as { id: string }[])
        .map((g) => g.id)
        .sort();
    expect(await ids(`workspace_id=${ws.slug}`)).toEqual([mine.id, orgLevel.id].sort());
    expect(await ids(`workspace_id=${ws.id}&status=archived`)).toEqual([archived.id]);
    expect(await ids(`workspace_id=${ws.id}&status=active,archived`)).toEqual(
      [mine.id, orgLevel.id, archived.id].sort(),
    );
    expect(await ids('')).toEqual([mine.id, orgLevel.id, elsewhere.id].sort());
    expect((await cp.call('get', '/guardrails?name=listed')).body).toEqual({
      object: 'list',
      data: [],
      total: 0,
    });
    const page = await cp.call('get', '/guardrails?name=Listed&page_size=2&current_page=1');
    expect(page.body.total).toBe(3);
    expect(page.body.data).toHaveLength(1);
    expectError(await cp.call('get', '/guardrails?status=deleted'), 400, 'AB01', 'query.status.0');
    expectError(await cp.call('get', '/guardrails?workspace_id=nope'), 404, 'AB08');
  });

  test('update: fields and definition replaced, versioned change events, audited', async ({ cp, pg }) => {
    const ws = await workspace(cp, 'Updates');
    const created = await guardrail(cp, { name: 'Before', workspace_id: ws.id });
    const updated = await cp.call('put', `/guardrails/${created.slug}?workspace_id=${ws.id}`, {
      body: {
        name: 'After',
        slug: 'after',
        checks: [{ id: 'word_count', parameters: { max: 500 } }],
        async: true,
      },
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body).toMatchObject({
      id: created.id,
      name: 'After',
      slug: 'after',
      checks: [{ id: 'word_count', parameters: { max: 500 } }],
      actions: { deny: false },
      async: true,
    });
    const change = await lastChange(pg.pool, created.id, EntityKind.GUARDRAIL);
    expect(change?.version).toBe(2);
    expect(change?.body?.$case === 'guardrail' && JSON.parse(change.body.value.bodyJson).async).toBe(true);

    const archived = await cp.call('put', `/guardrails/${created.id}`, { body: { status: 'archived' } });
    expect(archived.body.status).toBe('archived');
    expect((await lastChange(pg.pool, created.id, EntityKind.GUARDRAIL))?.body).toMatchObject({
      value: { status: EntityStatus.ARCHIVED },
    });
    const audits = (await auditEvents(pg.pool)).filter(
      (a) => a.action === 'guardrails.update' && a.resourceId === created.id,
    );
    expect(audits.map((a) => a.statusCode)).toEqual([200, 200]);
  });

  test('delete: 200 {}, a tombstone for gateways, then 404; audited', async ({ cp, pg }) => {
    const ws = await workspace(cp, 'Deletes');
    const created = await guardrail(cp, { name: 'Doomed', workspace_id: ws.id });
    const deleted = await cp.call('delete', `/guardrails/${created.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({});
    expect(await lastChange(pg.pool, created.id, EntityKind.GUARDRAIL)).toMatchObject({
      version: 2,
      tombstone: true,
      workspaceId: ws.id,
    });
    expectError(await cp.call('get', `/guardrails/${created.id}`), 404, 'AB08');
    expectError(await cp.call('delete', `/guardrails/${created.id}`), 404, 'AB08');
    const audit = (await auditEvents(pg.pool)).filter(
      (a) => a.action === 'guardrails.delete' && a.resourceId === created.id,
    );
    expect(audit.map((a) => [a.outcome, a.statusCode])).toEqual([
      [AuditOutcome.SUCCESS, 200],
      [AuditOutcome.FAILURE, 404],
    ]);
    // The slug is free again.
    expect((await guardrail(cp, { name: 'Doomed', workspace_id: ws.id })).slug).toBe('doomed');
  });

  test('snapshot: every guardrail at its latest version, and tombstones of deleted ones', async ({ cp }) => {
    const ws = await workspace(cp, 'Snapshot');
    const kept = await guardrail(cp, { name: 'Kept', workspace_id: ws.id });
    await cp.call('put', `/guardrails/${kept.id}`, { body: { name: 'Kept v2' } });
    const gone = await guardrail(cp, { name: 'Gone' });
    await cp.call('delete', `/guardrails/${gone.id}`);
    const entities = snapshotEntities(await readSnapshot(cp.app.ports.grpc)).filter(
      (e) => e.kind === EntityKind.GUARDRAIL,
    );
    expect(entities.find((e) => e.id === kept.id)).toMatchObject({
      version: 2,
      body: { value: { name: 'Kept v2' } },
    });
    expect(entities.find((e) => e.id === gone.id)).toMatchObject({ version: 2, tombstone: true });
  });
});
