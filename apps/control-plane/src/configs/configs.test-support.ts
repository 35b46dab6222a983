// Test support for the config and guardrail families: tenants, providers and guardrails made through
// the admin API, member keys, and the latest change event of an entity.
import type { Entity, EntityKind } from '@aigw/proto';
import type pg from 'pg';
import { expect } from 'vitest';
import type { ControlPlaneFixture } from '../../test/harness.js';
import { createIntegration, entityChanges, type Ref } from '../integrations/integrations.test-support.js';
import { insertUser, insertWorkspaceKey, organisationId } from '../workspaces/workspaces.test-support.js';

export {
  adminKeyWithout,
  expectError,
  type Ref,
  serviceKey,
  workspace,
} from '../integrations/integrations.test-support.js';

export const CONFIG_SCOPES = [
  'configs.create',
  'configs.read',
  'configs.list',
  'configs.update',
  'configs.delete',
];
export const GUARDRAIL_SCOPES = [
  'guardrails.create',
  'guardrails.read',
  'guardrails.list',
  'guardrails.update',
  'guardrails.delete',
];

let integrations = 0;

/** A provider `slug` in the workspace (behind a fresh OpenAI integration). */
export async function provider(cp: ControlPlaneFixture, ws: Ref, slug: string): Promise<string> {
  integrations += 1;
  const integration = await createIntegration(cp, {
    name: `Integration ${integrations}`,
    allow_all_workspaces: true,
    create_default_provider: false,
  });
  const res = await cp.call('post', '/providers', {
    body: { workspace_id: ws.id, integration_id: integration.id, slug },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

export interface CreatedGuardrail {
  readonly id: string;
  readonly slug: string;
  readonly organisation_id: string;
  readonly workspace_id: string | null;
}

/** A guardrail with one `valid_json` check; `body` overrides (workspace_id omitted: organisation-level). */
export async function guardrail(
  cp: ControlPlaneFixture,
  body: Record<string, unknown>,
  key?: string,
): Promise<CreatedGuardrail> {
  const res = await cp.call('post', '/guardrails', {
    ...(key !== undefined ? { key } : {}),
    body: { name: 'Guard', checks: [{ id: 'valid_json' }], ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** A workspace key owned by a user who is only a `member` of the workspace. */
export async function memberKey(pool: pg.Pool, workspaceId: string, scopes: string[]): Promise<string> {
  const orgId = await organisationId(pool);
  const userId = await insertUser(pool, orgId);
  await pool.query(
    'insert into control.workspace_members (workspace_id, user_id, role) values ($1, $2, $3)',
    [workspaceId, userId, 'member'],
  );
  return (await insertWorkspaceKey(pool, { orgId, workspaceId, scopes, userId })).key;
}

/** The last change event of an entity of `kind`. */
export async function lastChange(pool: pg.Pool, id: string, kind: EntityKind): Promise<Entity | undefined> {
  return (await entityChanges(pool, id, kind)).at(-1);
}
