// The entities a policy is attached to (spec 4.1 "entities attached to usage and rate limit
// policies"): the active workspaces, API keys and users in the policy's reach whose own attributes
// satisfy its conditions. Request-only keys (provider, model, config, virtual_key) cannot be decided
// from an entity and are left out of the match; docs/admin-api/policies.md has the table.
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { ControlDatabase } from '../db/schema.js';
import { type Page, pageBounds } from '../http/list.js';
import { WILDCARD } from './policies.conditions.js';
import type { PolicyRow } from './policies.db.js';

const REQUEST_ONLY: ReadonlySet<string> = new Set(['provider', 'model', 'config', 'virtual_key']);

export const attachedEntitySchema = z.discriminatedUnion('object', [
  z.object({ object: z.literal('workspace'), id: z.uuid(), name: z.string(), slug: z.string() }),
  z.object({
    object: z.literal('api-key'),
    id: z.uuid(),
    name: z.string(),
    type: z.enum(['admin', 'workspace', 'service']),
    workspace_id: z.uuid().nullable(),
    user_id: z.uuid().nullable(),
  }),
  z.object({
    object: z.literal('user'),
    id: z.uuid(),
    email: z.string(),
    first_name: z.string(),
    last_name: z.string(),
  }),
]);

export type AttachedEntity = z.output<typeof attachedEntitySchema>;

/** An entity's values for each condition key; an absent key means the entity has no such value. */
type Attributes = Map<string, ReadonlySet<string>>;

interface Candidate {
  readonly entity: AttachedEntity;
  readonly attributes: Attributes;
}

function metadataAttributes(metadata: Record<string, unknown> | undefined): [string, Set<string>][] {
  return Object.entries(metadata ?? {})
    .filter((entry): entry is [string, string] => typeof entry[1] === 'string')
    .map(([k, v]) => [`metadata.${k}`, new Set([v])]);
}

/** Every condition the entity can answer holds: its value is among the entity's, or `*` and it has one. */
export function satisfies(policy: Pick<PolicyRow, 'conditions'>, attributes: Attributes): boolean {
  return policy.conditions.every((condition) => {
    if (REQUEST_ONLY.has(condition.key)) return true;
    const values = attributes.get(condition.key);
    if (!values || values.size === 0) return false;
    return condition.value === WILDCARD || values.has(condition.value);
  });
}

async function candidates(db: Kysely<ControlDatabase>, policy: PolicyRow): Promise<Candidate[]> {
  const org = policy.organisation_id;
  const scoped = policy.workspace_id;
  let workspaceQuery = db
    .selectFrom('workspaces')
    .select(['id', 'name', 'slug', 'default_metadata'])
    .where('organisation_id', '=', org)
    .where('status', '=', 'active');
  let keyQuery = db
    .selectFrom('api_keys')
    .select(['id', 'name', 'type', 'workspace_id', 'user_id', 'defaults'])
    .where('organisation_id', '=', org)
    .where('status', '=', 'active');
  let memberQuery = db
    .selectFrom('workspace_members')
    .innerJoin('workspaces', 'workspaces.id', 'workspace_members.workspace_id')
    .select(['workspace_members.user_id', 'workspace_members.workspace_id'])
    .where('workspaces.organisation_id', '=', org)
    .where('workspaces.status', '=', 'active');
  if (scoped !== null) {
    workspaceQuery = workspaceQuery.where('id', '=', scoped);
    keyQuery = keyQuery.where('workspace_id', '=', scoped);
    memberQuery = memberQuery.where('workspace_members.workspace_id', '=', scoped);
  }
  const [workspaces, keys, memberships, users] = await Promise.all([
    workspaceQuery.orderBy('created_at').orderBy('id').execute(),
    keyQuery.orderBy('created_at').orderBy('id').execute(),
    memberQuery.execute(),
    db
      .selectFrom('users')
      .select(['id', 'email', 'first_name', 'last_name'])
      .where('organisation_id', '=', org)
      .where('status', '=', 'active')
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
  ]);
  const grouped = (pairs: [string, string][]) => {
    const map = new Map<string, Set<string>>();
    for (const [owner, value] of pairs) map.set(owner, (map.get(owner) ?? new Set()).add(value));
    return map;
  };
  const keysOfWorkspace = grouped(keys.flatMap((k) => (k.workspace_id ? [[k.workspace_id, k.id]] : [])));
  const keysOfUser = grouped(keys.flatMap((k) => (k.user_id ? [[k.user_id, k.id]] : [])));
  const workspacesOfUser = grouped(memberships.map((m) => [m.user_id, m.workspace_id]));
  const orgSet = new Set([org]);

  const result: Candidate[] = workspaces.map((w) => ({
    entity: { object: 'workspace', id: w.id, name: w.name, slug: w.slug },
    attributes: new Map([
      ['workspace_id', new Set([w.id])],
      ['organisation_id', orgSet],
      ['api_key', keysOfWorkspace.get(w.id) ?? new Set()],
      ...metadataAttributes(w.default_metadata),
    ]),
  }));
  for (const k of keys) {
    const metadata = (k.defaults as { metadata?: Record<string, unknown> }).metadata;
    result.push({
      entity: {
        object: 'api-key',
        id: k.id,
        name: k.name,
        type: k.type,
        workspace_id: k.workspace_id,
        user_id: k.user_id,
      },
      attributes: new Map([
        ['api_key', new Set([k.id])],
        ['workspace_id', new Set(k.workspace_id ? [k.workspace_id] : [])],
        ['organisation_id', orgSet],
        ...metadataAttributes(metadata),
      ]),
    });
  }
  for (const u of users) {
    const memberOf = workspacesOfUser.get(u.id);
    if (scoped !== null && !memberOf) continue;
    result.push({
      entity: { object: 'user', id: u.id, email: u.email, first_name: u.first_name, last_name: u.last_name },
      attributes: new Map([
        ['workspace_id', memberOf ?? new Set()],
        ['organisation_id', orgSet],
        ['api_key', keysOfUser.get(u.id) ?? new Set()],
        ['metadata._user', new Set([u.id, u.email])],
      ]),
    });
  }
  return result;
}

/** Workspaces first, then API keys, then users; each in creation order. */
export async function attachedEntities(
  db: Kysely<ControlDatabase>,
  policy: PolicyRow,
  page: Page,
): Promise<{ data: AttachedEntity[]; total: number }> {
  const matched = (await candidates(db, policy)).filter((c) => satisfies(policy, c.attributes));
  const { limit, offset } = pageBounds(page);
  return { data: matched.slice(offset, offset + limit).map((c) => c.entity), total: matched.length };
}

/** One attached entity by id (any kind), or undefined when the policy does not reach it. */
export async function findAttachedEntity(
  db: Kysely<ControlDatabase>,
  policy: PolicyRow,
  id: string,
): Promise<AttachedEntity | undefined> {
  const wanted = id.toLowerCase();
  return (await candidates(db, policy)).find((c) => c.entity.id === wanted && satisfies(policy, c.attributes))
    ?.entity;
}
