// Test support for the policy routes: request bodies, workspaces and keys made through the admin
// API, and the outbox rows of one policy.
import { type ChangeEvent, EntityKind } from '@aigw/proto';
import type pg from 'pg';
import { expect } from 'vitest';
import type { ControlPlaneFixture } from '../../test/harness.js';
import { changeEvents } from '../../test/outbox-rows.js';

export interface WorkspaceRef {
  readonly id: string;
  readonly slug: string;
}

export async function createWorkspace(cp: ControlPlaneFixture, slug: string): Promise<WorkspaceRef> {
  const response = await cp.call('post', '/workspaces', { body: { name: slug, slug } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return { id: response.body.id, slug };
}

/** A workspace service key (acts as manager) holding `scopes`. */
export async function serviceKey(
  cp: ControlPlaneFixture,
  workspaceId: string,
  scopes: readonly string[],
): Promise<string> {
  const response = await cp.call('post', '/api-keys/workspace/service', {
    body: { name: 'policy test key', workspace_id: workspaceId, scopes },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.key;
}

export function rateBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Per key',
    conditions: [{ key: 'model', value: '*' }],
    group_by: [{ key: 'api_key' }],
    type: 'requests',
    unit: 'rpm',
    value: 100,
    ...overrides,
  };
}

export function usageBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Monthly budget',
    conditions: [{ key: 'model', value: '*' }],
    group_by: [{ key: 'api_key' }],
    type: 'cost',
    credit_limit: 100,
    alert_threshold: 80,
    periodic_reset: 'monthly',
    ...overrides,
  };
}

/** Creates a policy; expects 201 and returns its id. */
export async function createPolicy(
  cp: ControlPlaneFixture,
  kind: 'rate-limits' | 'usage-limits',
  body: Record<string, unknown>,
  key?: string,
): Promise<string> {
  const response = await cp.call('post', `/policies/${kind}`, { body, ...(key ? { key } : {}) });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.id;
}

export async function policyChanges(pool: pg.Pool, id: string): Promise<ChangeEvent[]> {
  return (await changeEvents(pool)).filter(
    (c) =>
      (c.entity?.kind === EntityKind.RATE_LIMIT_POLICY || c.entity?.kind === EntityKind.USAGE_LIMIT_POLICY) &&
      c.entity.id === id,
  );
}
