import { randomUUID } from 'node:crypto';
import { ActorType, AuditOutcome, EntityKind, EntityStatus } from '@aigw/proto';
import { describe, expect } from 'vitest';
import { ADMIN_KEY, startControlPlane } from '../../test/harness.js';
import { auditEvents, changeEvents } from '../../test/outbox-rows.js';
import { test } from '../users/users.test-support.js';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

interface ScimResponse {
  readonly status: number;
  readonly body: any;
  readonly headers: Headers;
}

/** A SCIM client as an identity provider is one: `Authorization: Bearer <key>`, application/scim+json. */
function scimClient(base: string, key: string | null) {
  return async (method: string, path: string, body?: unknown): Promise<ScimResponse> => {
    const headers: Record<string, string> = { accept: 'application/scim+json' };
    if (key !== null) headers.authorization = `Bearer ${key}`;
    if (body !== undefined) headers['content-type'] = 'application/scim+json';
    const response = await fetch(`${base}/scim/v2${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: text === '' ? undefined : JSON.parse(text),
      headers: response.headers,
    };
  };
}

const filterBy = (expression: string) => `/Users?filter=${encodeURIComponent(expression)}`;

function expectScimError(response: ScimResponse, status: number, scimType?: string) {
  expect(response.headers.get('content-type')).toMatch(/^application\/scim\+json/);
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body).toMatchObject({ schemas: [ERROR], status: String(status) });
  expect(typeof response.body.detail).toBe('string');
  if (scimType === undefined) expect(response.body.scimType).toBeUndefined();
  else expect(response.body.scimType).toBe(scimType);
}

async function userRow(pool: { query: (q: string, v: unknown[]) => Promise<{ rows: any[] }> }, id: string) {
  const rows = await pool.query(
    'select email, first_name, last_name, role, status, external_id, scim_deleted_at from control.users where id = $1',
    [id],
  );
  return rows.rows[0];
}

describe('SCIM 2.0 users', () => {
  test('Okta-style lifecycle: create, get, filter, deactivate (keys stop), reactivate, replace, delete', async ({
    org,
  }) => {
    const created = await org.call('post', '/api-keys/organisation/service', {
      body: { name: 'okta scim', scopes: ['scim.provision'] },
    });
    expect(created.status).toBe(201);
    const scim = scimClient(org.base, created.body.key);

    const none = await scim('GET', filterBy('userName eq "jane@example.com"'));
    expect(none.status).toBe(200);
    expect(none.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    expect(none.body).toMatchObject({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
      totalResults: 0,
      Resources: [],
    });

    const posted = await scim('POST', '/Users', {
      schemas: [USER],
      userName: 'Jane@Example.com',
      name: { givenName: 'Jane', familyName: 'Doe' },
      emails: [{ primary: true, value: 'Jane@Example.com', type: 'work' }],
      displayName: 'Jane Doe',
      locale: 'en-US',
      externalId: '00u1okta',
      groups: [],
      active: true,
    });
    expect(posted.status, JSON.stringify(posted.body)).toBe(201);
    const id: string = posted.body.id;
    expect(posted.body).toMatchObject({
      schemas: [USER],
      userName: 'jane@example.com',
      externalId: '00u1okta',
      name: { givenName: 'Jane', familyName: 'Doe' },
      displayName: 'Jane Doe',
      emails: [{ value: 'jane@example.com', primary: true }],
      active: true,
      meta: { resourceType: 'User' },
    });
    expect(posted.headers.get('location')).toBe(`${org.base}/scim/v2/Users/${id}`);
    expect(posted.body.meta.location).toBe(`${org.base}/scim/v2/Users/${id}`);

    const got = await scim('GET', `/Users/${id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(posted.body);
    for (const expression of [
      'userName eq "JANE@example.com"',
      'externalId eq "00u1okta"',
      `id eq "${id}" and userName eq "jane@example.com"`,
    ]) {
      const found = await scim('GET', filterBy(expression));
      expect([
        expression,
        found.body.totalResults,
        found.body.Resources.map((r: { id: string }) => r.id),
      ]).toEqual([expression, 1, [id]]);
    }
    expect((await scim('GET', filterBy('externalId eq "00U1OKTA"'))).body.totalResults).toBe(0);

    // The admin API sees the same user: a member with no workspace.
    const admin = await org.call('get', `/users/${id}`);
    expect(admin.body).toMatchObject({
      email: 'jane@example.com',
      role: 'member',
      status: 'active',
      workspaces: [],
    });

    // Jane gets a workspace and a key of her own, which works until she is deactivated.
    const ws = await org.workspace('scim-ws');
    await org.pool.query(
      "insert into control.workspace_members (workspace_id, user_id, role) values ($1, $2, 'member')",
      [ws, id],
    );
    const janeKey = await org.apiKey({
      type: 'workspace',
      workspaceId: ws,
      userId: id,
      scopes: ['workspaces.read'],
    });
    expect((await org.call('get', `/workspaces/${ws}`, { key: janeKey.key })).status).toBe(200);

    const deactivated = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', path: 'active', value: false }],
    });
    expect(deactivated.status, JSON.stringify(deactivated.body)).toBe(200);
    expect(deactivated.body.active).toBe(false);
    // Deactivation is the admin API's removal: status removed, no memberships, keys disabled.
    const denied = await org.call('get', `/workspaces/${ws}`, { key: janeKey.key });
    expect(denied.status).toBe(401);
    expect(denied.body.error.code).toBe('AB05');
    expect((await org.call('get', `/users/${id}`)).body).toMatchObject({ status: 'removed', workspaces: [] });
    const keyRow = await org.pool.query('select status from control.api_keys where id = $1', [janeKey.id]);
    expect(keyRow.rows[0].status).toBe('disabled');
    const keyChange = (await changeEvents(org.pool)).find(
      (c) => c.entity?.kind === EntityKind.API_KEY && c.entity.id === janeKey.id,
    );
    expect(keyChange?.entity?.body).toMatchObject({
      $case: 'apiKey',
      value: { status: EntityStatus.DISABLED },
    });
    expect(keyChange?.actor).toMatchObject({ type: ActorType.API_KEY, apiKeyId: created.body.id });
    // A deactivated user is still SCIM's to read (IdPs reconcile it), shown inactive.
    expect((await scim('GET', `/Users/${id}`)).body.active).toBe(false);
    expect((await scim('GET', filterBy('userName eq "jane@example.com"'))).body.Resources[0].active).toBe(
      false,
    );

    // Reactivation brings the user back (as a new invite does); the disabled key stays disabled.
    const back = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', path: 'active', value: true }],
    });
    expect(back.body.active).toBe(true);
    expect((await org.call('get', `/users/${id}`)).body.status).toBe('active');
    expect((await org.call('get', `/workspaces/${ws}`, { key: janeKey.key })).status).toBe(401);

    const replaced = await scim('PUT', `/Users/${id}`, {
      schemas: [USER],
      id,
      userName: 'jane.doe@example.com',
      name: { givenName: 'Janet', familyName: 'Doe-Smith' },
      externalId: '00u1okta-2',
      active: true,
    });
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
    expect(replaced.body).toMatchObject({
      id,
      userName: 'jane.doe@example.com',
      externalId: '00u1okta-2',
      name: { givenName: 'Janet', familyName: 'Doe-Smith' },
      active: true,
    });
    expect(await userRow(org.pool, id)).toMatchObject({
      email: 'jane.doe@example.com',
      first_name: 'Janet',
      last_name: 'Doe-Smith',
      external_id: '00u1okta-2',
      status: 'active',
    });

    const deleted = await scim('DELETE', `/Users/${id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeUndefined();
    expectScimError(await scim('GET', `/Users/${id}`), 404);
    expectScimError(await scim('DELETE', `/Users/${id}`), 404);
    expectScimError(
      await scim('PATCH', `/Users/${id}`, {
        schemas: [PATCH],
        Operations: [{ op: 'replace', path: 'active', value: true }],
      }),
      404,
    );
    expect((await scim('GET', filterBy('userName eq "jane.doe@example.com"'))).body.totalResults).toBe(0);
    // The row stays, removed, as every removed user's does.
    expect((await org.call('get', `/users/${id}`)).body.status).toBe('removed');

    // Provisioned again: the removed user of that e-mail comes back, under its id.
    const again = await scim('POST', '/Users', {
      schemas: [USER],
      userName: 'jane.doe@example.com',
      active: true,
    });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ id, active: true, name: { givenName: '', familyName: '' } });
    expect(again.body.externalId).toBeUndefined();

    const audits = (await auditEvents(org.pool)).filter(
      (a) => a.resourceId === id && a.action.startsWith('scim.'),
    );
    expect(audits.map((a) => a.action)).toEqual([
      'scim.users.create',
      'scim.users.patch',
      'scim.users.patch',
      'scim.users.replace',
      'scim.users.delete',
      'scim.users.delete',
      'scim.users.patch',
      'scim.users.create',
    ]);
    expect(audits.map((a) => a.outcome)).toEqual([
      AuditOutcome.SUCCESS,
      AuditOutcome.SUCCESS,
      AuditOutcome.SUCCESS,
      AuditOutcome.SUCCESS,
      AuditOutcome.SUCCESS,
      AuditOutcome.FAILURE,
      AuditOutcome.FAILURE,
      AuditOutcome.SUCCESS,
    ]);
    for (const audit of audits)
      expect(audit).toMatchObject({
        organisationId: org.organisationId,
        resourceType: 'user',
        actor: { type: ActorType.API_KEY, apiKeyId: created.body.id },
      });
  });

  test("Entra-style PATCH: path-less Replace, 'False' strings, name paths, emails filters", async ({
    org,
  }) => {
    const key = await org.call('post', '/api-keys/organisation/service', {
      body: { name: 'entra scim', scopes: ['scim.provision'] },
    });
    const scim = scimClient(org.base, key.body.key);
    const posted = await scim('POST', '/Users', {
      schemas: [USER, 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
      externalId: 'b1c2',
      userName: 'sam@example.com',
      active: true,
      displayName: 'Sam Jones',
      emails: [{ primary: true, type: 'work', value: 'sam@example.com' }],
      name: { formatted: 'Sam Jones', familyName: 'Jones', givenName: 'Sam' },
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { department: 'R&D' },
    });
    expect(posted.status, JSON.stringify(posted.body)).toBe(201);
    const id = posted.body.id;

    const renamed = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [
        { op: 'Replace', path: 'name.givenName', value: 'Samuel' },
        { op: 'Replace', path: 'displayName', value: 'Samuel Jones' },
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'sam@example.com' },
        { op: 'Add', path: 'externalId', value: 'b1c2-new' },
      ],
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body).toMatchObject({
      name: { givenName: 'Samuel', familyName: 'Jones' },
      externalId: 'b1c2-new',
    });

    const pathless = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Replace', value: { active: false } }],
    });
    expect(pathless.status, JSON.stringify(pathless.body)).toBe(200);
    expect(pathless.body.active).toBe(false);
    expect((await userRow(org.pool, id)).status).toBe('removed');

    const stringTrue = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Replace', path: 'active', value: 'True' }],
    });
    expect(stringTrue.body.active).toBe(true);
    const pathlessNames = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', value: { 'name.familyName': 'Jonas', active: 'False' } }],
    });
    expect(pathlessNames.status, JSON.stringify(pathlessNames.body)).toBe(200);
    expect(pathlessNames.body).toMatchObject({ name: { familyName: 'Jonas' }, active: false });
    expect(await userRow(org.pool, id)).toMatchObject({ last_name: 'Jonas', status: 'removed' });
  });

  test('refusals in SCIM error shape; bad input writes nothing', async ({ org }) => {
    const key = await org.call('post', '/api-keys/organisation/service', {
      body: { name: 'scim', scopes: ['scim.provision'] },
    });
    const scim = scimClient(org.base, key.body.key);
    const first = await scim('POST', '/Users', { schemas: [USER], userName: 'kim@example.com' });
    expect(first.status).toBe(201);
    const lee = await scim('POST', '/Users', { schemas: [USER], userName: 'lee@example.com' });

    // Duplicate userName (case-insensitive), on create and on rename.
    expectScimError(
      await scim('POST', '/Users', { schemas: [USER], userName: 'KIM@example.com' }),
      409,
      'uniqueness',
    );
    expectScimError(
      await scim('PUT', `/Users/${lee.body.id}`, { schemas: [USER], userName: 'kim@example.com' }),
      409,
      'uniqueness',
    );
    expect((await userRow(org.pool, lee.body.id)).email).toBe('lee@example.com');
    // A deactivated user SCIM still sees is taken too: the IdP finds it by filter and reactivates it.
    const leeOff = await scim('PATCH', `/Users/${lee.body.id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', path: 'active', value: false }],
    });
    expect(leeOff.body.active).toBe(false);
    expectScimError(
      await scim('POST', '/Users', { schemas: [USER], userName: 'lee@example.com' }),
      409,
      'uniqueness',
    );
    expect((await userRow(org.pool, lee.body.id)).status).toBe('removed');

    // Two IdP workers creating one user at once: one wins, the other is told uniqueness.
    const race = await Promise.all(
      [1, 2].map(() => scim('POST', '/Users', { schemas: [USER], userName: 'race@example.com' })),
    );
    expect(race.map((r) => r.status).sort()).toEqual([201, 409]);
    expectScimError(race.find((r) => r.status === 409) as ScimResponse, 409, 'uniqueness');
    const raced = await org.pool.query(
      "select count(*)::int as n from control.users where email = 'race@example.com'",
    );
    expect(raced.rows[0].n).toBe(1);

    for (const filter of [
      'userName sw "kim"',
      'emails.value eq "kim@example.com"',
      'userName eq "a" or userName eq "b"',
      'not (userName eq "a")',
      'userName eq',
      'userName pr',
    ])
      expectScimError(await scim('GET', filterBy(filter)), 400, 'invalidFilter');

    const before = await org.pool.query('select count(*)::int as n from control.users');
    expectScimError(
      await scim('POST', '/Users', { schemas: [USER], userName: 'not an email' }),
      400,
      'invalidValue',
    );
    expectScimError(await scim('POST', '/Users', { schemas: [USER] }), 400, 'invalidValue');
    expectScimError(
      await scim('POST', '/Users', { schemas: ['urn:other'], userName: 'x@example.com' }),
      400,
      'invalidValue',
    );
    expectScimError(await scim('POST', '/Users', '{"userName":'), 400, 'invalidSyntax');
    expect((await org.pool.query('select count(*)::int as n from control.users')).rows[0].n).toBe(
      before.rows[0].n,
    );

    // A PATCH whose later operation is bad applies none of them.
    const mixed = await scim('PATCH', `/Users/${first.body.id}`, {
      schemas: [PATCH],
      Operations: [
        { op: 'replace', path: 'active', value: false },
        { op: 'replace', path: 'userName', value: 'no-at-sign' },
      ],
    });
    expectScimError(mixed, 400, 'invalidValue');
    expectScimError(
      await scim('PATCH', `/Users/${first.body.id}`, {
        schemas: [PATCH],
        Operations: [{ op: 'frobnicate', path: 'active' }],
      }),
      400,
      'invalidValue',
    );
    expectScimError(
      await scim('PATCH', `/Users/${first.body.id}`, {
        Operations: [{ op: 'replace', path: 'active', value: false }],
      }),
      400,
      'invalidValue',
    );
    expect(await userRow(org.pool, first.body.id)).toMatchObject({
      status: 'active',
      email: 'kim@example.com',
    });

    // The organisation's owner is beyond an admin key's reach: 403, still active.
    const owner = await scim('GET', filterBy('userName eq "owner@example.com"'));
    const ownerId = owner.body.Resources[0].id;
    expectScimError(
      await scim('PATCH', `/Users/${ownerId}`, {
        schemas: [PATCH],
        Operations: [{ op: 'replace', value: { active: false } }],
      }),
      403,
    );
    expect((await userRow(org.pool, ownerId)).status).toBe('active');

    expectScimError(await scim('GET', `/Users/${randomUUID()}`), 404);
    expectScimError(await scim('GET', '/Users/not-a-uuid'), 404);
    expectScimError(await scim('GET', '/Groups'), 404);
  });

  test('authentication: bearer admin key with scim.provision; 401 without, 403 without the scope', async ({
    org,
  }) => {
    const scopeless = await org.call('post', '/api-keys/organisation/service', {
      body: { name: 'users only', scopes: ['users.list', 'users.read'] },
    });
    const workspaceId = await org.workspace('scim-auth-ws');
    const workspaceKey = await org.apiKey({ type: 'service', workspaceId, scopes: ['scim.provision'] });
    for (const path of ['/Users', '/ServiceProviderConfig', '/Schemas', '/ResourceTypes']) {
      expectScimError(await scimClient(org.base, null)('GET', path), 401);
      expectScimError(await scimClient(org.base, 'aigw_not_a_key')('GET', path), 401);
      expectScimError(await scimClient(org.base, scopeless.body.key)('GET', path), 403);
      expectScimError(await scimClient(org.base, workspaceKey.key)('GET', path), 403);
    }
    const missing = await scimClient(org.base, null)('GET', '/Users');
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    // The key in the admin API's header is not SCIM's credential form.
    const headerOnly = await fetch(`${org.base}/scim/v2/Users`, {
      headers: { 'x-service-api-key': ADMIN_KEY },
    });
    expect(headerOnly.status).toBe(401);
    const refused = await scimClient(org.base, scopeless.body.key)('POST', '/Users', {
      schemas: [USER],
      userName: 'nope@example.com',
    });
    expectScimError(refused, 403);
    const audit = (await auditEvents(org.pool)).find(
      (a) => a.action === 'scim.users.create' && a.actor?.apiKeyId === scopeless.body.id,
    );
    expect(audit).toMatchObject({ outcome: AuditOutcome.FAILURE, statusCode: 403 });

    const config = await scimClient(org.base, ADMIN_KEY)('GET', '/ServiceProviderConfig');
    expect(config.status).toBe(200);
    expect(config.body).toMatchObject({
      patch: { supported: true },
      bulk: { supported: false },
      filter: { supported: true },
    });
    const schemas = await scimClient(org.base, ADMIN_KEY)('GET', '/Schemas');
    expect(schemas.body.Resources.map((s: { id: string }) => s.id)).toEqual([USER]);
    const types = await scimClient(org.base, ADMIN_KEY)('GET', '/ResourceTypes/User');
    expect(types.body).toMatchObject({ id: 'User', endpoint: '/Users', schema: USER });
  });

  test('paging: startIndex and count over a ListResponse', async ({ org }) => {
    const scim = scimClient(org.base, ADMIN_KEY);
    for (const name of ['p1', 'p2', 'p3'])
      expect(
        (await scim('POST', '/Users', { schemas: [USER], userName: `${name}@paging.test` })).status,
      ).toBe(201);
    const all = await scim('GET', '/Users?count=200');
    const total = all.body.totalResults;
    expect(total).toBe(all.body.Resources.length);
    const page = await scim('GET', '/Users?startIndex=2&count=2');
    expect(page.body).toMatchObject({ totalResults: total, startIndex: 2, itemsPerPage: 2 });
    expect(page.body.Resources.map((r: { id: string }) => r.id)).toEqual(
      all.body.Resources.slice(1, 3).map((r: { id: string }) => r.id),
    );
    const counted = await scim('GET', '/Users?count=0');
    expect(counted.body).toMatchObject({ totalResults: total, itemsPerPage: 0, Resources: [] });
    expectScimError(await scim('GET', '/Users?count=many'), 400, 'invalidValue');
  });

  test('SCIM_ENABLED=OFF: /scim/v2 answers 404 as if absent', async ({ pg, nats }) => {
    const { app } = startControlPlane({ pg, nats }, { SCIM_ENABLED: 'OFF' });
    await app.start();
    try {
      const base = `http://127.0.0.1:${app.ports.http}`;
      const scim = scimClient(base, ADMIN_KEY);
      const absent = await fetch(`${base}/scim/v3/Users`, {
        headers: { authorization: `Bearer ${ADMIN_KEY}` },
      });
      expect(absent.status).toBe(404);
      const absentCode = ((await absent.json()) as { error: { code: string } }).error.code;
      for (const [method, path] of [
        ['GET', '/Users'],
        ['GET', '/ServiceProviderConfig'],
        ['POST', '/Users'],
      ] as const) {
        const response = await scim(
          method,
          path,
          method === 'POST' ? { schemas: [USER], userName: 'off@example.com' } : undefined,
        );
        // The body any unknown path gets (the admin error envelope), not SCIM's.
        expect([method, path, response.status, response.body.error?.code]).toEqual([
          method,
          path,
          404,
          absentCode,
        ]);
      }
      expect(
        (await pg.pool.query("select count(*)::int as n from control.users where email = 'off@example.com'"))
          .rows[0].n,
      ).toBe(0);
    } finally {
      await app.stop();
    }
  });
});
