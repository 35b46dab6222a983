// The policy form's state and the request bodies it becomes: POST bodies with every field the API
// takes, PUT bodies with only the fields a policy may change (its conditions, group_by and type are
// fixed once it exists). Numbers the user typed that are not numbers are sent as typed, so the API's
// validation names the field (its message is shown there) rather than the console guessing.

export type PolicyKind = 'usage' | 'rate';
export type ResetStyle = 'none' | 'weekly' | 'monthly' | 'days';

export interface ConditionDraft {
  key: string;
  value: string;
}

export interface PolicyDraft {
  kind: PolicyKind;
  name: string;
  /** Workspace id or slug; '' for the caller's default (organisation-level for an admin key). */
  workspace: string;
  conditions: ConditionDraft[];
  groupBy: string[];
  rate: { type: 'requests' | 'tokens'; unit: 'rpm' | 'rph' | 'rpd'; value: string };
  usage: {
    type: 'cost' | 'tokens';
    creditLimit: string;
    alertThreshold: string;
    reset: ResetStyle;
    resetDays: string;
    /** A `datetime-local` value (the browser's time zone), '' for none. */
    nextResetAt: string;
  };
}

/** The keys conditions and group_by take (docs/admin-api/policies.md); `metadata.<key>` too. */
export const POLICY_KEYS = [
  'api_key',
  'workspace_id',
  'organisation_id',
  'provider',
  'model',
  'config',
  'virtual_key',
  'metadata._user',
] as const;

export function emptyDraft(kind: PolicyKind): PolicyDraft {
  return {
    kind,
    name: '',
    workspace: '',
    conditions: [{ key: 'workspace_id', value: '' }],
    groupBy: ['api_key'],
    rate: { type: 'requests', unit: 'rpm', value: '' },
    usage: {
      type: 'cost',
      creditLimit: '',
      alertThreshold: '',
      reset: 'none',
      resetDays: '',
      nextResetAt: '',
    },
  };
}

/** A typed number, or the text itself when it is not one (the API names the field). */
export function numberOrText(text: string): number | string {
  const trimmed = text.trim();
  const value = Number(trimmed);
  return trimmed !== '' && Number.isFinite(value) ? value : trimmed;
}

/** A `datetime-local` value as ISO 8601 with offset (UTC); the text itself when it is not a date. */
export function isoFromLocal(local: string): string {
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? local : date.toISOString();
}

/** ISO 8601 -> a `datetime-local` value in the browser's time zone. */
export function localFromIso(iso: string | null): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

function resetFields(usage: PolicyDraft['usage'], forUpdate: boolean): Record<string, unknown> {
  const next = usage.nextResetAt.trim() ? isoFromLocal(usage.nextResetAt.trim()) : null;
  switch (usage.reset) {
    case 'weekly':
    case 'monthly':
      return {
        periodic_reset: usage.reset,
        ...(forUpdate ? { periodic_reset_days: null } : {}),
        ...(next !== null || forUpdate ? { next_usage_reset_at: next } : {}),
      };
    case 'days':
      return {
        periodic_reset_days: numberOrText(usage.resetDays),
        ...(forUpdate ? { periodic_reset: null } : {}),
        ...(next !== null || forUpdate ? { next_usage_reset_at: next } : {}),
      };
    default:
      // Clearing both styles clears next_usage_reset_at on the API's side.
      return forUpdate ? { periodic_reset: null, periodic_reset_days: null } : {};
  }
}

/** The POST body (rate: /policies/rate-limits; usage: /policies/usage-limits). */
export function createBody(draft: PolicyDraft): Record<string, unknown> {
  const common = {
    name: draft.name,
    conditions: draft.conditions.map((c) => ({ key: c.key.trim(), value: c.value.trim() })),
    group_by: draft.groupBy.map((key) => ({ key: key.trim() })),
    ...(draft.workspace ? { workspace_id: draft.workspace } : {}),
  };
  if (draft.kind === 'rate')
    return { ...common, type: draft.rate.type, unit: draft.rate.unit, value: numberOrText(draft.rate.value) };
  const { usage } = draft;
  return {
    ...common,
    type: usage.type,
    credit_limit: numberOrText(usage.creditLimit),
    ...(usage.alertThreshold.trim() ? { alert_threshold: numberOrText(usage.alertThreshold) } : {}),
    ...resetFields(usage, false),
  };
}

/** The PUT body: the fields a policy may change, each sent (an emptied optional one as null). */
export function updateBody(draft: PolicyDraft): Record<string, unknown> {
  if (draft.kind === 'rate')
    return { name: draft.name, unit: draft.rate.unit, value: numberOrText(draft.rate.value) };
  const { usage } = draft;
  return {
    name: draft.name,
    credit_limit: numberOrText(usage.creditLimit),
    alert_threshold: usage.alertThreshold.trim() ? numberOrText(usage.alertThreshold) : null,
    ...resetFields(usage, true),
  };
}

/** A stored policy back into the form's state (for editing). */
export function draftOf(
  kind: PolicyKind,
  policy: {
    name: string;
    workspace_id: string | null;
    conditions: readonly ConditionDraft[];
    group_by: readonly { key: string }[];
    type: string;
    unit?: 'rpm' | 'rph' | 'rpd';
    value?: number;
    credit_limit?: number;
    alert_threshold?: number | null;
    periodic_reset?: 'weekly' | 'monthly' | null;
    periodic_reset_days?: number | null;
    next_usage_reset_at?: string | null;
  },
): PolicyDraft {
  const draft = emptyDraft(kind);
  draft.name = policy.name;
  draft.workspace = policy.workspace_id ?? '';
  draft.conditions = policy.conditions.map((c) => ({ ...c }));
  draft.groupBy = policy.group_by.map((g) => g.key);
  if (kind === 'rate') {
    draft.rate = {
      type: policy.type as 'requests' | 'tokens',
      unit: policy.unit ?? 'rpm',
      value: String(policy.value ?? ''),
    };
  } else {
    draft.usage = {
      type: policy.type as 'cost' | 'tokens',
      creditLimit: String(policy.credit_limit ?? ''),
      alertThreshold: policy.alert_threshold == null ? '' : String(policy.alert_threshold),
      reset: policy.periodic_reset ?? (policy.periodic_reset_days ? 'days' : 'none'),
      resetDays: policy.periodic_reset_days == null ? '' : String(policy.periodic_reset_days),
      nextResetAt: localFromIso(policy.next_usage_reset_at ?? null),
    };
  }
  return draft;
}

/** The form field an API `param` names (`body.conditions.0.key` -> `conditions.0.key`). */
export function policyFieldOf(param: string | null | undefined): string | undefined {
  if (!param?.startsWith('body.')) return undefined;
  return param.slice('body.'.length);
}

/** Whether the form shows a field for this name (`policyFieldOf` of a param); else the error goes to its banner. */
export function formHasField(draft: PolicyDraft, name: string): boolean {
  const common = ['name', 'workspace_id', 'type', 'conditions', 'group_by'];
  const kind =
    draft.kind === 'rate'
      ? ['unit', 'value']
      : ['credit_limit', 'alert_threshold', 'periodic_reset', 'periodic_reset_days', 'next_usage_reset_at'];
  if (common.includes(name) || kind.includes(name)) {
    // The reset fields show only when their style is chosen.
    if (name === 'periodic_reset_days') return draft.usage.reset === 'days';
    if (name === 'periodic_reset') return draft.usage.reset !== 'days';
    if (name === 'next_usage_reset_at') return draft.usage.reset !== 'none';
    return true;
  }
  const row = /^(conditions|group_by)\.(\d+)\.(key|value)$/.exec(name);
  if (!row) return false;
  const count = row[1] === 'conditions' ? draft.conditions.length : draft.groupBy.length;
  return Number(row[2]) < count && (row[3] === 'key' || row[1] === 'conditions');
}

/** Which entity key a policy must group by for an entity to have usage (and a reset) of its own. */
export function entityGroupKey(object: 'workspace' | 'api-key' | 'user'): string {
  return object === 'workspace' ? 'workspace_id' : object === 'api-key' ? 'api_key' : 'metadata._user';
}
