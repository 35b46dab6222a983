// Test support for the integration, provider and virtual-key families: tenants made through the API,
// error assertions, and the check that a raw credential appears nowhere it must not.
import { type ChangeEvent, type Entity, EntityKind } from '@aigw/proto';
import type pg from 'pg';
import { expect } from 'vitest';
import type { z } from 'zod';
import type { ApiResponse, ControlPlaneFixture } from '../../test/harness.js';
import { changeEvents } from '../../test/outbox-rows.js';
import { ALL_SCOPES } from '../auth/scopes.js';
import type { integrationSchema } from './integrations.schema.js';

export type IntegrationBody = z.output<typeof integrationSchema>;

/** Credentials used by the tests; none of them may ever show up in clear outside the request. */
export const OPENAI_KEY = 'sk-test-openai-ABCDEFGHIJKLMNOP-wxyz';
export const ROTATED_KEY = 'sk-test-rotated-QRSTUVWXYZ012345-rot9';
export const AWS_SECRET = 'aws/Secret+Access/Key0123456789abcdefSECR';
export const HEADER_SECRET = 'hdr-secret-value-0123456789-hdr1';

export interface Ref {
  readonly id: string;
  readonly slug: string;
}

/** Creates a workspace through the API (admin key). */
export async function workspace(cp: ControlPlaneFixture, name: string): Promise<Ref> {
  const res = await cp.call('post', '/workspaces', { body: { name } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { id: res.body.id, slug: res.body.slug };
}

/** A workspace service key (acts as manager of the workspace) holding `scopes`. */
export async function serviceKey(
  cp: ControlPlaneFixture,
  workspaceId: string,
  scopes: string[],
): Promise<string> {
  const res = await cp.call('post', '/api-keys/workspace/service', {
    body: { name: 'svc', workspace_id: workspaceId, scopes },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.key;
}

/** An admin key holding every scope except `without`. */
export async function adminKeyWithout(cp: ControlPlaneFixture, without: string[]): Promise<string> {
  const res = await cp.call('post', '/api-keys/organisation/service', {
    body: { name: 'narrow admin', scopes: ALL_SCOPES.filter((s) => !without.includes(s)) },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.key;
}

/** Creates an OpenAI integration (overridable); expects 201. */
export async function createIntegration(
  cp: ControlPlaneFixture,
  body: Record<string, unknown> = {},
): Promise<IntegrationBody> {
  const res = await cp.call('post', '/integrations', {
    body: { name: 'OpenAI prod', ai_provider: 'openai', credentials: { api_key: OPENAI_KEY }, ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

export function expectError(res: ApiResponse, status: number, code: string, param?: string | null): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error.code).toBe(code);
  if (param !== undefined) expect(res.body.error.param).toBe(param);
}

/**
 * No raw secret in any outbox row (change and audit events, raw protobuf bytes), nor in the rows of
 * the credential tables outside their envelopes.
 */
export async function expectSecretsNowhere(pool: pg.Pool, secrets: readonly string[]): Promise<void> {
  const outbox = await pool.query<{ payload: Buffer }>('select payload from control.outbox');
  expect(outbox.rows.length).toBeGreaterThan(0);
  const rows = await pool.query<{ text: string }>(
    `select row_to_json(t)::text as text from (
       select id, name, slug, masked_credentials, options, tags from control.integrations
       union all select id, name, slug, masked_credentials, options, tags from control.providers) t`,
  );
  const envelopes = await pool.query<{ e: Buffer | null }>(
    `select encrypted_credentials as e from control.integrations
     union all select encrypted_credentials from control.providers`,
  );
  for (const secret of secrets) {
    const bytes = Buffer.from(secret, 'utf8');
    for (const row of outbox.rows) expect(row.payload.includes(bytes)).toBe(false);
    for (const row of rows.rows) expect(row.text).not.toContain(secret);
    for (const row of envelopes.rows) expect(row.e?.includes(bytes) ?? false).toBe(false);
  }
}

/** A response body as text must not hold the secret, only its masked last four. */
export function expectMasked(body: unknown, secret: string): void {
  const text = JSON.stringify(body);
  expect(text).not.toContain(secret);
  expect(text).toContain(`****${secret.slice(-4)}`);
}

/** Change events of one entity (any kind), in outbox order. */
export async function entityChanges(pool: pg.Pool, id: string, kind?: EntityKind): Promise<Entity[]> {
  return (await changeEvents(pool))
    .map((c: ChangeEvent) => c.entity)
    .filter((e): e is Entity => e !== undefined && e.id === id && (kind === undefined || e.kind === kind));
}

export const PROVIDER_KINDS = [EntityKind.PROVIDER, EntityKind.VIRTUAL_KEY];

/** Every scope of the provider routes. */
export const ALL_PROVIDER_SCOPES = [
  'providers.create',
  'providers.read',
  'providers.list',
  'providers.update',
  'providers.delete',
];
