// Snapshot readers of both policy kinds: every policy, archived ones included (gateways learn of the
// archive through their status; policies are never deleted, so they have no tombstones).
import type { Entity } from '@aigw/proto';
import type { Kysely } from 'kysely';
import type { ControlDatabase } from '../db/schema.js';
import { type PolicyKind, type PolicyRow, policyDb } from './policies.db.js';
import { rateLimitsPolicyEntity } from './rate-limits.policy.js';
import { usageLimitsPolicyEntity } from './usage-limits.policy.js';

async function rows(trx: Kysely<ControlDatabase>, kind: PolicyKind): Promise<PolicyRow[]> {
  return policyDb(trx).selectFrom('policies').selectAll().where('kind', '=', kind).execute();
}

export async function readRateLimitsPolicies(trx: Kysely<ControlDatabase>): Promise<Entity[]> {
  return (await rows(trx, 'rate_limits')).map(rateLimitsPolicyEntity);
}

export async function readUsageLimitsPolicies(trx: Kysely<ControlDatabase>): Promise<Entity[]> {
  return (await rows(trx, 'usage_limits')).map(usageLimitsPolicyEntity);
}
