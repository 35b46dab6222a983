// Test support for the model-pricing family: callers with other scopes, workspaces or
// organisations, and a Kysely handle on the test database for the startup sync.
import { randomUUID } from 'node:crypto';
import { createDatabase, type Database } from '@aigw/db';
import type pg from 'pg';
import { expect } from 'vitest';
import type { ControlPlaneFixture } from '../../test/harness.js';
import { generateApiKey } from '../auth/api-key-secret.js';
import { type ControlDatabase, SCHEMA } from '../db/schema.js';
import { insertWorkspaceKey, organisationId } from '../workspaces/workspaces.test-support.js';

/** An admin API key of the test organisation holding only `scopes`, made through the API. */
export async function adminKeyWith(cp: ControlPlaneFixture, scopes: readonly string[]): Promise<string> {
  const created = await cp.call('post', '/api-keys/organisation/service', {
    body: { name: `pricing ${scopes.join(' ')}`.slice(0, 200), scopes },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.key;
}

/** A workspace service key of the test organisation holding every model_pricing scope it may. */
export async function workspaceKey(pool: pg.Pool, scopes: readonly string[]): Promise<string> {
  const orgId = await organisationId(pool);
  const workspaceId = randomUUID();
  await pool.query(
    'insert into control.workspaces (id, organisation_id, name, slug) values ($1, $2, $3, $4)',
    [workspaceId, orgId, 'Pricing', `pricing-${workspaceId.slice(0, 8)}`],
  );
  return (await insertWorkspaceKey(pool, { orgId, workspaceId, scopes: [...scopes] })).key;
}

/** A second organisation with an admin key holding `scopes`; returns the raw key. */
export async function otherOrganisationKey(pool: pg.Pool, scopes: readonly string[]): Promise<string> {
  const orgId = randomUUID();
  await pool.query('insert into control.organisations (id, name, slug) values ($1, $2, $3)', [
    orgId,
    'Other',
    `other-${orgId.slice(0, 8)}`,
  ]);
  const secret = generateApiKey();
  await pool.query(
    `insert into control.api_keys (id, organisation_id, type, name, key_hash, last4, scopes)
     values ($1, $2, 'admin', 'other admin', $3, $4, $5)`,
    [randomUUID(), orgId, secret.hash, secret.last4, [...scopes]],
  );
  return secret.key;
}

/** A Kysely handle on the test database (close it after use). */
export function controlDatabase(url: string): Database<ControlDatabase> {
  return createDatabase<ControlDatabase>({ url, schema: SCHEMA, applicationName: 'model-pricing-test' });
}

export const PRICING_SCOPES = [
  'model_pricing.create',
  'model_pricing.read',
  'model_pricing.list',
  'model_pricing.update',
  'model_pricing.delete',
] as const;

/** The platform row of (provider, model) as the API returns it, overridden or not. */
export async function platformRow(cp: ControlPlaneFixture, provider: string, model: string) {
  const list = await cp.call(
    'get',
    `/model-pricing?ai_provider=${provider}&model=${encodeURIComponent(model)}&include_overridden=true&source=platform`,
  );
  expect(list.body.data).toHaveLength(1);
  return list.body.data[0];
}
