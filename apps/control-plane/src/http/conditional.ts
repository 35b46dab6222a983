// Conditional writes of one entity (docs/decisions.md "Conditional updates"): the row's `version` is
// its strong ETag, and an If-Match on PUT/PATCH/DELETE is compared with it (RFC 9110 13.1.1, strong
// comparison) under the row lock, in the mutation's transaction. A mismatch is 409 AB07.
import { type Kysely, sql } from 'kysely';
import { conflict, invalid } from '../api-errors.js';
import type { Principal } from '../auth/principal.js';
import { isUuid } from '../auth/visibility.js';
import type { ControlDatabase } from '../db/schema.js';

/** Tables whose rows have `version bigint`, bumped on every write: what an ETag can name. */
export const VERSIONED_TABLES = [
  'organisations',
  'users',
  'workspaces',
  'api_keys',
  'integrations',
  'providers',
  'configs',
  'guardrails',
  'model_pricing',
  'policies',
  'prompts',
  'mcp_integrations',
  'mcp_servers',
  'deployments',
  'secret_references',
] as const;

export type VersionedTable = (typeof VERSIONED_TABLES)[number];

/**
 * The versioned entity a single-entity route reads or writes (its answers carry its ETag, its
 * PUT/PATCH/DELETE honour If-Match), or why a PUT/PATCH/DELETE route has none (it refuses If-Match).
 */
export type EntityVersioning =
  | {
      readonly table: VersionedTable;
      /**
       * The locks the handler takes before the entity's row (users: the organisation's owners), taken
       * first when If-Match is checked, so that the early row lock keeps the handler's lock order.
       */
      readonly lockBefore?: (db: Kysely<ControlDatabase>, principal: Principal) => Promise<unknown>;
    }
  | { readonly exempt: string };

/** `If-Match: *`, or the entity tags it lists: strong ones by their value; weak ones never match. */
export type IfMatch =
  | { readonly any: true }
  | { readonly any: false; readonly strong: readonly string[]; readonly weak: readonly string[] };

/** `param` of If-Match errors. */
export const IF_MATCH_PARAM = 'header.if-match';

/** The ETag of a row version: strong, the decimal version quoted. */
export const etagOf = (version: string): string => `"${version}"`;

/** One list element of `1#entity-tag` (RFC 9110 8.8.3), or an empty one; `etagc` may hold commas. */
const ELEMENT = /[ \t]*(?:(W\/)?"([\x21\x23-\x7e\x80-\xff]*)")?[ \t]*(?:,|$)/y;

/** The If-Match header parsed; undefined when absent; 400 AB01 when it is neither `*` nor a list of entity tags. */
export function parseIfMatch(header: string | undefined): IfMatch | undefined {
  if (header === undefined) return undefined;
  if (header.trim() === '*') return { any: true };
  const strong: string[] = [];
  const weak: string[] = [];
  for (let at = 0; at < header.length; ) {
    ELEMENT.lastIndex = at;
    const element = ELEMENT.exec(header);
    if (!element || ELEMENT.lastIndex === at) throw malformed();
    const tag = element[2];
    if (tag !== undefined) (element[1] ? weak : strong).push(tag);
    at = ELEMENT.lastIndex;
  }
  if (strong.length === 0 && weak.length === 0) throw malformed();
  return { any: false, strong, weak };
}

function malformed() {
  return invalid(
    'If-Match must be * or a list of entity tags such as "3" (the ETag of a read)',
    IF_MATCH_PARAM,
  );
}

/**
 * 409 AB07 when `condition` does not hold for the entity at `version` (undefined: there is none).
 * Strong comparison: `"3"` matches version 3, `W/"3"` matches nothing, `*` any existing entity.
 */
export function assertIfMatch(condition: IfMatch, version: string | undefined, resource: string): void {
  if (version === undefined)
    throw conflict(`the ${resource} does not exist, so If-Match cannot hold`, IF_MATCH_PARAM);
  if (condition.any || condition.strong.includes(version)) return;
  if (condition.strong.length === 0)
    throw conflict(
      `If-Match lists only weak entity tags, which never match (strong comparison): send the ETag as read ("${version}" now)`,
      IF_MATCH_PARAM,
    );
  throw conflict(
    `the ${resource} changed since version ${condition.strong.join(' or ')} (now ${version}): read it again`,
    IF_MATCH_PARAM,
  );
}

/** The row's version, or undefined when there is no such row; `lock` takes its row lock (FOR UPDATE). */
export async function rowVersion(
  db: Kysely<ControlDatabase>,
  table: VersionedTable,
  id: string,
  lock: boolean,
): Promise<string | undefined> {
  // Every versioned table has a uuid id: anything else names no row (and must not reach a uuid cast).
  if (!isUuid(id)) return undefined;
  const { rows } = await sql<{ version: string }>`select version from ${sql.table(table)} where id = ${id}${
    lock ? sql` for update` : sql``
  }`.execute(db);
  return rows[0]?.version;
}
