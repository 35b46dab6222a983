// The alert e-mail: subject and plain-text body of one alert, naming what carries the limit.
import type { Kysely } from 'kysely';
import type { ControlDatabase } from '../db/schema.js';
import type { AlertRow, AlertSubjectKind } from './alerts.db.js';

const NOUN: Record<AlertSubjectKind, string> = {
  usage_limit_policy: 'Usage limits policy',
  rate_limit_policy: 'Rate limits policy',
  api_key: 'API key',
  workspace: 'Workspace',
  provider: 'Provider',
  integration: 'Integration',
};

/** The name of the subject (or null once it is deleted: the id still says which it was). */
export async function subjectName(db: Kysely<ControlDatabase>, row: AlertRow): Promise<string | null> {
  const id = row.subject_id;
  const found =
    row.subject_kind === 'usage_limit_policy' || row.subject_kind === 'rate_limit_policy'
      ? await db
          .withTables<{ policies: { id: string; name: string } }>()
          .selectFrom('policies')
          .select('name')
          .where('id', '=', id)
          .executeTakeFirst()
      : row.subject_kind === 'api_key'
        ? await db.selectFrom('api_keys').select('name').where('id', '=', id).executeTakeFirst()
        : row.subject_kind === 'workspace'
          ? await db.selectFrom('workspaces').select('name').where('id', '=', id).executeTakeFirst()
          : row.subject_kind === 'provider'
            ? await db.selectFrom('providers').select('name').where('id', '=', id).executeTakeFirst()
            : await db.selectFrom('integrations').select('name').where('id', '=', id).executeTakeFirst();
  return found?.name ?? null;
}

function amount(row: AlertRow, value: number): string {
  if (row.limit_type === 'cost') return `${value.toFixed(2)} USD`;
  return `${Math.round(value)} ${row.limit_type}`;
}

function windowWords(ms: number | null): string {
  const units: [number, string][] = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1000, 'second'],
  ];
  for (const [size, word] of units)
    if (ms !== null && ms % size === 0) return ms === size ? word : `${ms / size} ${word}s`;
  return `${ms ?? 0} ms`;
}

export interface AlertMail {
  readonly subject: string;
  readonly text: string;
}

/** `Usage limit reached: Usage limits policy "Team budget"` and a body with every fact of the alert. */
export function alertMail(row: AlertRow, name: string | null): AlertMail {
  const what = `${NOUN[row.subject_kind]} ${name === null ? row.subject_id : `"${name.replace(/[\r\n]+/g, ' ')}"`}`;
  const subject =
    row.kind === 'rate_limited'
      ? `Rate limit reached: ${what}`
      : row.kind === 'exhausted'
        ? `Usage limit reached: ${what}`
        : `Usage alert threshold reached: ${what}`;
  const group = Object.entries(row.group_values)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
  const lines = [
    row.kind === 'rate_limited'
      ? `${what} refused requests over its rate limit of ${amount(row, row.credit_limit)} per ${windowWords(row.window_ms)} (429) in the window that started at ${row.period_start?.toISOString() ?? 'unknown'}.`
      : row.kind === 'exhausted'
        ? `${what} has used up its ${row.limit_type} limit: requests it covers are refused (412) until the period resets or the limit is raised.`
        : `${what} has reached its ${row.limit_type} alert threshold.`,
    '',
    `Usage:           ${amount(row, row.usage)}`,
    `Limit:           ${amount(row, row.credit_limit)}`,
    ...(row.alert_threshold === null ? [] : [`Alert threshold: ${amount(row, row.alert_threshold)}`]),
    ...(group === '' ? [] : [`Group:           ${group}`]),
    `Period start:    ${row.period_start?.toISOString() ?? 'none (the limit never resets)'}`,
    `Raised at:       ${row.occurred_at.toISOString()}`,
    `Organisation:    ${row.organisation_id}`,
    ...(row.workspace_id === null ? [] : [`Workspace:       ${row.workspace_id}`]),
    `Alert id:        ${row.id}`,
    '',
    'You receive this as an administrator of the organisation or a manager of the workspace.',
  ];
  return { subject, text: `${lines.join('\n')}\n` };
}
