// Test support for the API key family: tenants inserted straight into Postgres (workspaces, users,
// members, a second organisation) and keys created through the admin API.
import { randomUUID } from 'node:crypto';
import { type ChangeEvent, EntityKind } from '@aigw/proto';
import type pg from 'pg';
import { expect } from 'vitest';
import type { z } from 'zod';
import type { ControlPlaneFixture } from '../../test/harness.js';
import { changeEvents } from '../../test/outbox-rows.js';
import { WORKSPACE_SCOPES } from '../auth/scopes.js';
import type { apiKeyWithSecretSchema } from './api-keys.schema.js';

export interface Tenant {
  readonly organisationId: string;
  /** Inserts a workspace; returns its id. */
  workspace(
    slug: string,
    options?: { settings?: Record<string, unknown>; archived?: boolean },
  ): Promise<string>;
  /** Inserts an active user of the organisation; returns its id. */
  user(role?: 'owner' | 'admin' | 'member'): Promise<string>;
  member(workspaceId: string, userId: string, role: 'manager' | 'member'): Promise<void>;
}

export async function tenant(
  cp: ControlPlaneFixture,
  pool: pg.Pool,
  organisationId?: string,
): Promise<Tenant> {
  const orgId = organisationId ?? (await cp.call('get', '/organisation')).body.id;
  return {
    organisationId: orgId,
    async workspace(slug, options = {}) {
      const id = randomUUID();
      await pool.query(
        'insert into control.workspaces (id, organisation_id, name, slug, status, settings) values ($1, $2, $3, $4, $5, $6)',
        [
          id,
          orgId,
          slug,
          slug,
          options.archived ? 'archived' : 'active',
          JSON.stringify(options.settings ?? {}),
        ],
      );
      return id;
    },
    async user(role = 'member') {
      const id = randomUUID();
      await pool.query(
        'insert into control.users (id, organisation_id, email, role) values ($1, $2, $3, $4)',
        [id, orgId, `${id}@example.com`, role],
      );
      return id;
    },
    async member(workspaceId, userId, role) {
      await pool.query(
        'insert into control.workspace_members (workspace_id, user_id, role) values ($1, $2, $3)',
        [workspaceId, userId, role],
      );
    },
  };
}

/** A second organisation (for cross-organisation checks); returns its id. */
export async function otherOrganisation(pool: pg.Pool): Promise<string> {
  const id = randomUUID();
  await pool.query('insert into control.organisations (id, name, slug) values ($1, $2, $3)', [
    id,
    'Other',
    `other-${id.slice(0, 8)}`,
  ]);
  return id;
}

/** A key as the API returns it at creation (the raw key included). */
export type ApiKeyBody = z.output<typeof apiKeyWithSecretSchema>;

export interface CreatedKey {
  readonly id: string;
  readonly key: string;
  readonly body: ApiKeyBody;
}

/** Creates a workspace user key through the API (admin key unless `as` is given); expects 201. */
export async function userKey(
  cp: ControlPlaneFixture,
  workspaceId: string,
  userId: string,
  options: { scopes?: readonly string[]; as?: string; name?: string } = {},
): Promise<CreatedKey> {
  const response = await cp.call('post', '/api-keys/workspace/user', {
    ...(options.as ? { key: options.as } : {}),
    body: {
      name: options.name ?? 'user key',
      workspace_id: workspaceId,
      user_id: userId,
      scopes: options.scopes ?? WORKSPACE_SCOPES,
    },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return { id: response.body.id, key: response.body.key, body: response.body };
}

/** Every change event recorded for one API key (or its tombstone), in outbox order. */
export async function keyChanges(pool: pg.Pool, id: string): Promise<ChangeEvent[]> {
  return (await changeEvents(pool)).filter(
    (c) => c.entity?.kind === EntityKind.API_KEY && c.entity.id === id,
  );
}

/** Polls `read` until `done` holds or `timeoutMs` passes; returns the last value read. */
export async function until<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
