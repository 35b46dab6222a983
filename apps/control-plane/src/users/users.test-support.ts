// Test support for the users and invite families: a control plane accepting owner/admin tokens
// (real JWKS server), rows inserted straight into Postgres, and the invite-then-accept round trip.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { expect } from 'vitest';
import {
  ADMIN_KEY,
  apiClient,
  test as base,
  type CallOptions,
  startControlPlane,
} from '../../test/harness.js';
import { generateApiKey } from '../auth/api-key-secret.js';
import { makeKey, signToken, startJwksServer } from '../auth/jwks.test-support.js';
import { ALL_SCOPES } from '../auth/scopes.js';

const ISSUER = 'https://idp.users.test';
const AUDIENCE = 'aigw-admin';

export interface TokenOptions {
  readonly sub?: string;
  readonly organisationId?: string;
  readonly workspaceId?: string;
  readonly scopes?: readonly string[];
}

export interface OrgFixture {
  readonly pool: pg.Pool;
  /** The control plane's origin (`http://127.0.0.1:<port>`), for routes outside /v1 (SCIM). */
  readonly base: string;
  readonly organisationId: string;
  readonly ownerId: string;
  /** Id of the admin key `call` uses (acts as admin; the bootstrap key acts as owner). */
  readonly adminKeyId: string;
  call: ReturnType<typeof apiClient>;
  /** A signed token for this organisation (all scopes unless given). */
  token(role: 'owner' | 'admin' | 'manager' | 'member', options?: TokenOptions): Promise<string>;
  /** Inserts an active workspace; returns its id. */
  workspace(slug: string, status?: 'active' | 'archived'): Promise<string>;
  /** Inserts an API key row; returns the raw key and id. */
  apiKey(row: {
    type: 'admin' | 'workspace' | 'service';
    workspaceId?: string | null;
    userId?: string | null;
    scopes?: readonly string[];
  }): Promise<{ key: string; id: string }>;
  /** Invites `email` (admin key unless `as` is given) and accepts; returns the new user. */
  join(
    email: string,
    invite?: { role?: 'admin' | 'member'; workspaces?: { id: string; role: 'manager' | 'member' }[] },
    as?: CallOptions,
  ): Promise<ApiUser>;
}

export interface ApiUser {
  readonly id: string;
  readonly email: string;
  readonly role: string;
  readonly status: string;
  readonly workspaces: readonly { id: string; slug: string; role: string }[];
}

interface Listed {
  readonly id: string;
  readonly email?: string;
  readonly status?: string;
}

/** The ids of a list response's items. */
export const idsOf = (body: { data: readonly Listed[] }) => body.data.map((item) => item.id);
/** The e-mails of a list response's items. */
export const emailsOf = (body: { data: readonly Listed[] }) => body.data.map((item) => item.email);
/** `[id, status]` of each item of a list response. */
export const statusesOf = (body: { data: readonly Listed[] }) =>
  body.data.map((item) => [item.id, item.status]);

export const test = base.extend<{ org: OrgFixture }>({
  org: [
    async ({ pg, nats }, use) => {
      const key = await makeKey('ES256', 'users-test');
      const jwks = await startJwksServer([key.jwk]);
      const { app } = startControlPlane(
        { pg, nats },
        { JWT_JWKS_URL: jwks.url, JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE },
      );
      await app.start();
      try {
        // The bootstrap key belongs to the owner and acts as owner; these tests act as an admin
        // through a second admin key that the bootstrap key creates.
        const base = `http://127.0.0.1:${app.ports.http}`;
        const created = await apiClient(base, ADMIN_KEY)('post', '/api-keys/organisation/service', {
          body: { name: 'test admin', scopes: [...ALL_SCOPES] },
        });
        expect(created.status).toBe(201);
        const call = apiClient(base, created.body.key);
        const ids = await pg.pool.query<{ organisation_id: string; id: string }>(
          "select organisation_id, id from control.users where role = 'owner'",
        );
        const organisationId = ids.rows[0]?.organisation_id ?? '';
        const fixture: OrgFixture = {
          pool: pg.pool,
          base,
          organisationId,
          ownerId: ids.rows[0]?.id ?? '',
          adminKeyId: created.body.id,
          call,
          token: (role, options = {}) =>
            signToken(key, {
              iss: ISSUER,
              aud: AUDIENCE,
              exp: Math.floor(Date.now() / 1000) + 3600,
              sub: options.sub ?? randomUUID(),
              organisation_id: options.organisationId ?? organisationId,
              role,
              ...(options.workspaceId ? { workspace_id: options.workspaceId } : {}),
              scope: [...(options.scopes ?? ALL_SCOPES)],
            }),
          async workspace(slug, status = 'active') {
            const id = randomUUID();
            await pg.pool.query(
              'insert into control.workspaces (id, organisation_id, name, slug, status) values ($1, $2, $3, $4, $5)',
              [id, organisationId, slug, slug, status],
            );
            return id;
          },
          async apiKey(row) {
            const secret = generateApiKey();
            const id = randomUUID();
            await pg.pool.query(
              `insert into control.api_keys (id, organisation_id, workspace_id, user_id, type, name, key_hash, last4, scopes)
               values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
              [
                id,
                organisationId,
                row.workspaceId ?? null,
                row.userId ?? null,
                row.type,
                `${row.type} key`,
                secret.hash,
                secret.last4,
                [...(row.scopes ?? ALL_SCOPES)],
              ],
            );
            return { key: secret.key, id };
          },
          async join(email, invite = {}, as = {}) {
            const created = await call('post', '/user-invites', {
              ...as,
              body: { email, role: invite.role ?? 'member', workspaces: invite.workspaces ?? [] },
            });
            expect(created.status, JSON.stringify(created.body)).toBe(201);
            const accepted = await call('post', '/user-invites/accept', {
              key: null,
              body: { token: created.body.accept_token },
            });
            expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
            return accepted.body;
          },
        };
        await use(fixture);
      } finally {
        await app.stop();
        await jwks.close();
      }
    },
    { scope: 'file' },
  ],
});
