// Test helpers for the tenancy routes: rows that other families' routes create (users, workspace
// keys), inserted directly so these tests stand alone.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { generateApiKey } from '../auth/api-key-secret.js';

export async function organisationId(pool: pg.Pool): Promise<string> {
  const { rows } = await pool.query<{ id: string }>(
    'select id from control.organisations order by created_at limit 1',
  );
  if (!rows[0]) throw new Error('no organisation: the control plane was not bootstrapped');
  return rows[0].id;
}

export async function insertUser(
  pool: pg.Pool,
  orgId: string,
  options: { role?: 'owner' | 'admin' | 'member'; status?: 'active' | 'removed' } = {},
): Promise<string> {
  const id = randomUUID();
  await pool.query(
    'insert into control.users (id, organisation_id, email, role, status) values ($1, $2, $3, $4, $5)',
    [id, orgId, `u-${id}@example.com`, options.role ?? 'member', options.status ?? 'active'],
  );
  return id;
}

export interface InsertedKey {
  readonly id: string;
  readonly key: string;
}

/** A workspace-bound key (`service`, or `workspace` owned by `userId`) holding `scopes`. */
export async function insertWorkspaceKey(
  pool: pg.Pool,
  key: { orgId: string; workspaceId: string; scopes: string[]; userId?: string },
): Promise<InsertedKey> {
  const id = randomUUID();
  const secret = generateApiKey();
  await pool.query(
    `insert into control.api_keys (id, organisation_id, workspace_id, user_id, type, name, key_hash, last4, scopes)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      id,
      key.orgId,
      key.workspaceId,
      key.userId ?? null,
      key.userId ? 'workspace' : 'service',
      'test key',
      secret.hash,
      secret.last4,
      key.scopes,
    ],
  );
  return { id, key: secret.key };
}
