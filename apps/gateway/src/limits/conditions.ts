// Policy matching, pure: which request attribute a condition / group_by key names, whether every
// condition of a policy holds, and the group value (one counter per distinct value tuple).
import type { PolicyCondition, PolicyGroupBy } from '@aigw/proto';
import type { LimitSubject } from './subject.js';

/** Matches every value of its key; the request must still have one. */
export const WILDCARD = '*';
const METADATA = 'metadata.';

/**
 * The values a request has for a key, canonical first ([] when it has none). `config` and
 * `virtual_key` may be written as id or slug in a policy, so both are offered to conditions; the
 * group value takes the first (the id for configs, the slug for virtual keys, as policies name them).
 */
export function valuesOf(subject: LimitSubject, key: string): readonly string[] {
  switch (key) {
    case 'api_key':
      return present(subject.apiKeyId);
    case 'workspace_id':
      return present(subject.workspaceId);
    case 'organisation_id':
      return present(subject.organisationId);
    case 'provider':
      return present(subject.provider);
    case 'model':
      return present(subject.model);
    case 'config':
      return present(subject.configId, subject.configSlug);
    case 'virtual_key':
      return present(subject.virtualKeySlug, subject.virtualKeyId);
    default:
      if (key.startsWith(METADATA) && key.length > METADATA.length) {
        const name = key.slice(METADATA.length);
        return Object.hasOwn(subject.metadata, name) ? present(subject.metadata[name]) : [];
      }
      // An unknown key (a newer control plane's vocabulary) never matches: fail closed to "not
      // this policy" rather than applying a limit to requests it was not written for.
      return [];
  }
}

function present(...values: (string | undefined)[]): readonly string[] {
  const out: string[] = [];
  for (const v of values) if (v !== undefined && v !== '' && !out.includes(v)) out.push(v);
  return out;
}

/** True when every condition holds. A policy without conditions applies to nothing. */
export function matchesAll(conditions: readonly PolicyCondition[], subject: LimitSubject): boolean {
  if (conditions.length === 0) return false;
  for (const c of conditions) {
    const values = valuesOf(subject, c.key);
    if (values.length === 0) return false;
    if (c.value !== WILDCARD && !values.includes(c.value)) return false;
  }
  return true;
}

/**
 * The group a request counts in: `key=value` pairs in group_by order joined by `&`, keys and values
 * URI-encoded (the UsageAlertEvent.group_value form). A request without a value for a key counts in
 * that key's empty group (`metadata.team=`), so a missing attribute cannot escape the policy.
 */
export function groupValue(groupBy: readonly PolicyGroupBy[], subject: LimitSubject): string {
  let out = '';
  for (const g of groupBy) {
    const value = valuesOf(subject, g.key)[0] ?? '';
    out += `${out === '' ? '' : '&'}${encodeURIComponent(g.key)}=${encodeURIComponent(value)}`;
  }
  return out;
}
