import { AuditOutcome, EntityKind } from '@aigw/proto';
import { describe, expect } from 'vitest';
import { ADMIN_KEY, apiClient, startControlPlane, test } from '../../test/harness.js';
import { auditEvents, changeEvents } from '../../test/outbox-rows.js';

describe('admin API surface', () => {
  test('serves an OpenAPI 3.1 document generated from the route schemas', async ({ cp }) => {
    const response = await cp.call('get', '/openapi.json', { key: null });
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe('3.1.0');
    expect(response.body.components.securitySchemes.apiKey).toEqual({
      type: 'apiKey',
      in: 'header',
      name: 'x-service-api-key',
    });
    const put = response.body.paths['/organisation'].put;
    expect(put['x-required-scope']).toBe('organisation.update');
    expect(put.requestBody.content['application/json'].schema.properties.name).toMatchObject({
      type: 'string',
      maxLength: 255,
    });
  });

  test('an unknown admin route is 404 AB08', async ({ cp }) => {
    const response = await cp.call('get', '/no-such-family');
    expect(response.status).toBe(404);
    expect(response.body.error).toMatchObject({
      code: 'AB08',
      message: 'no admin route GET /v1/no-such-family',
    });
  });

  test('refuses missing and unknown credentials with 401 AB05 in the error envelope', async ({ cp }) => {
    const missing = await cp.call('get', '/organisation', { key: null });
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({
      error: {
        message: expect.stringContaining('missing credentials'),
        type: 'authentication_error',
        code: 'AB05',
        param: null,
      },
    });
    const wrong = await cp.call('get', '/organisation', { key: 'aigw_not-a-real-key' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.message).toBe('invalid API key');
    const noJwt = await cp.call('get', '/organisation', { key: null, token: 'a.b.c' });
    expect(noJwt.status).toBe(401);
    expect(noJwt.body.error.message).toContain('JWT_JWKS_URL');
  });

  test('malformed JSON is 400 AB01, an oversized body 413, unknown fields name their path', async ({
    cp,
  }) => {
    const malformed = await cp.call('put', '/organisation', { raw: '{"name": ' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatchObject({ code: 'AB01', message: 'request body is not valid JSON' });

    const huge = await cp.call('put', '/organisation', {
      raw: JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(huge.status).toBe(413);

    const unknown = await cp.call('put', '/organisation', { body: { name: 'Acme', colour: 'red' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('AB01');
    expect(unknown.body.error.message).toContain('body');
    expect(unknown.body.error.message).toContain('colour');

    const nul = await cp.call('put', '/organisation', { body: { default_metadata: { team: 'a\u0000b' } } });
    expect(nul.status).toBe(400);
    expect(nul.body.error).toMatchObject({ code: 'AB01', param: 'body.default_metadata.team' });

    const tooLong = await cp.call('put', '/organisation', { body: { name: 'x'.repeat(256) } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.param).toBe('body.name');
  });

  test('JSON no store or serialiser can hold is 400 AB01 before any change: unpaired surrogates, nesting beyond 128', async ({
    cp,
    pg,
  }) => {
    const auditsBefore = (await auditEvents(pg.pool)).length;
    // `\ud800` as JSON text: JSON.parse turns it into a lone surrogate Postgres refuses.
    const lone = await cp.call('post', '/workspaces', { raw: '{"name":"ops\\ud800"}' });
    expect(lone.status).toBe(400);
    expect(lone.body.error).toMatchObject({
      code: 'AB01',
      type: 'invalid_request_error',
      param: 'body.name',
      message:
        'body.name: must be valid Unicode text (it holds an unpaired surrogate escape such as \\ud800)',
    });
    const inKey = await cp.call('put', '/organisation', { raw: '{"default_metadata":{"\\udc00":"v"}}' });
    expect(inKey.status).toBe(400);
    expect(inKey.body.error.code).toBe('AB01');

    const workspace = await cp.call('post', '/workspaces', { body: { name: 'deep configs' } });
    expect(workspace.status).toBe(201);
    const deep = (depth: number) => `${'{"targets":['.repeat(depth)}{}${']}'.repeat(depth)}`;
    const created = await cp.call('post', '/configs', {
      raw: `{"name":"deep","workspace_id":"${workspace.body.id}","config":${deep(5_000)}}`,
    });
    expect(created.status).toBe(400);
    expect(created.body.error.code).toBe('AB01');
    expect(created.body.error.message).toMatch(
      /^body\.config\.targets\.0\..*: JSON nests deeper than 128 levels$/,
    );
    const config = await cp.call('post', '/configs', {
      body: { name: 'shallow', workspace_id: workspace.body.id, config: { provider: 'openai' } },
    });
    expect(config.status).toBe(201);
    const updated = await cp.call('put', `/configs/${config.body.id}`, {
      raw: `{"config":${deep(5_000)}}`,
    });
    expect(updated.status).toBe(400);
    expect(updated.body.error.message).toMatch(
      /^body\.config\.targets\.0\..*: JSON nests deeper than 128 levels$/,
    );
    // Nothing was changed by the refused bodies, so nothing was audited for them.
    const audits = (await auditEvents(pg.pool)).slice(auditsBefore);
    expect(audits.filter((a) => a.statusCode === 400 && a.action === 'workspaces.create')).toEqual([]);

    // Well-formed text outside the BMP (a surrogate pair) is stored and audited as sent.
    const emoji = await cp.call('post', '/workspaces', { raw: '{"name":"ops \\ud83d\\ude80"}' });
    expect(emoji.status).toBe(201);
    expect(emoji.body.name).toBe('ops \u{1F680}');
    const record = (await auditEvents(pg.pool)).find((a) => a.resourceId === emoji.body.id);
    expect(JSON.parse(record?.requestDetailsJson ?? '{}').body.name).toBe('ops \u{1F680}');
  });

  test('hostile JSON shapes are 400 AB01 without a stack overflow: 100 000-deep arrays, NaN, a top-level array', async ({
    cp,
    pg,
  }) => {
    const changesBefore = (await changeEvents(pg.pool)).length;
    const bodies = [
      '['.repeat(100_000) + ']'.repeat(100_000),
      `{"name":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
      '{"name": NaN}',
      '{"name": Infinity}',
      '[{"name":"Acme"}]',
      '"Acme"',
      'null',
    ];
    for (const raw of bodies) {
      const response = await cp.call('put', '/organisation', { raw });
      expect(response.status, raw.slice(0, 20)).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'AB01', type: 'invalid_request_error' });
    }
    // Duplicate keys: JSON.parse keeps the last one (RFC 8259 leaves it open); the value is then
    // validated like any other, so a duplicate cannot smuggle past the schema.
    const dup = await cp.call('put', '/organisation', {
      raw: '{"name":"Acme","name":"x' + 'y'.repeat(300) + '"}',
    });
    expect(dup.status).toBe(400);
    expect(dup.body.error.param).toBe('body.name');
    expect((await changeEvents(pg.pool)).length).toBe(changesBefore);
    expect((await cp.call('get', '/organisation')).status).toBe(200);
  });

  test('an organisation update changes the row, emits a versioned change and an audit record in one commit', async ({
    cp,
    pg,
  }) => {
    const before = await cp.call('get', '/organisation');
    expect(before.status).toBe(200);
    expect(before.body.settings).toEqual({
      membersViewAllData: true,
      managersViewAllData: true,
      membersViewAnalytics: true,
      managersViewAnalytics: true,
      membersViewPrompts: true,
      managersViewPrompts: true,
      membersWritePrompts: false,
      managersWritePrompts: true,
    });

    const updated = await cp.call('put', '/organisation', {
      body: { name: 'Acme', settings: { membersViewAllData: false }, default_metadata: { team: 'core' } },
      headers: { 'user-agent': 'audit-test' },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: 'Acme', default_metadata: { team: 'core' } });
    expect(updated.body.settings.membersViewAllData).toBe(false);

    const changes = (await changeEvents(pg.pool)).filter((c) => c.entity?.kind === EntityKind.ORGANISATION);
    const last = changes.at(-1);
    expect(last?.entity?.version).toBe(2);
    expect(last?.entity?.body).toMatchObject({
      $case: 'organisation',
      value: { name: 'Acme', access: { membersViewAllData: false }, defaultMetadata: { team: 'core' } },
    });

    const audit = (await auditEvents(pg.pool)).find(
      (a) => a.action === 'organisation.update' && a.outcome === AuditOutcome.SUCCESS,
    );
    expect(audit).toMatchObject({
      organisationId: before.body.id,
      resourceType: 'organisation',
      resourceId: before.body.id,
      requestMethod: 'PUT',
      requestPath: '/v1/organisation',
      userAgent: 'audit-test',
      outcome: AuditOutcome.SUCCESS,
      statusCode: 200,
    });
    expect(audit?.actor?.apiKeyId).not.toBe('');
    expect(JSON.parse(audit?.requestDetailsJson ?? '{}').body.name).toBe('Acme');
    expect(audit?.requestDetailsJson).not.toContain(ADMIN_KEY);
  });

  test('a refused mutation is audited as a failure and changes nothing', async ({ cp, pg }) => {
    const before = (await changeEvents(pg.pool)).length;
    const refused = await cp.call('put', '/organisation', { body: { name: '' } });
    expect(refused.status).toBe(400);
    expect((await changeEvents(pg.pool)).length).toBe(before);
    const failures = (await auditEvents(pg.pool)).filter(
      (a) => a.action === 'organisation.update' && a.outcome === AuditOutcome.FAILURE,
    );
    expect(failures.at(-1)?.statusCode).toBe(400);
  });

  test('API_ACCESS_ENABLED=OFF turns every admin route off but keeps health up', async ({ pg, nats }) => {
    const { app } = startControlPlane({ pg, nats }, { API_ACCESS_ENABLED: 'OFF' });
    await app.start();
    try {
      const base = `http://127.0.0.1:${app.ports.http}`;
      const call = apiClient(base, ADMIN_KEY);
      const response = await call('get', '/organisation');
      expect(response.status).toBe(403);
      expect(response.body.error).toMatchObject({
        code: 'AB03',
        message: expect.stringContaining('API_ACCESS_ENABLED'),
      });
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
    } finally {
      await app.stop();
    }
  });

  test('AUDIT_LOGS_ENABLED=OFF writes changes but no audit records', async ({ pg, nats }) => {
    const { app } = startControlPlane({ pg, nats }, { AUDIT_LOGS_ENABLED: 'OFF' });
    await app.start();
    try {
      const call = apiClient(`http://127.0.0.1:${app.ports.http}`, ADMIN_KEY);
      const auditsBefore = (await auditEvents(pg.pool)).length;
      const changesBefore = (await changeEvents(pg.pool)).length;
      expect((await call('put', '/organisation', { body: { name: 'No audit' } })).status).toBe(200);
      expect((await call('put', '/organisation', { body: { name: '' } })).status).toBe(400);
      expect((await auditEvents(pg.pool)).length).toBe(auditsBefore);
      expect((await changeEvents(pg.pool)).length).toBe(changesBefore + 1);
    } finally {
      await app.stop();
    }
  });

  test('a second start on the same database does not bootstrap again', async ({ cp, pg, nats }) => {
    const { app } = startControlPlane({ pg, nats }, { BOOTSTRAP_ADMIN_KEY: `other_${'z'.repeat(40)}` });
    await app.start();
    await app.stop();
    const organisations = await pg.pool.query('select count(*)::int as n from control.organisations');
    expect(organisations.rows[0].n).toBe(1);
    expect((await cp.call('get', '/organisation', { key: `other_${'z'.repeat(40)}` })).status).toBe(401);
  });
});
