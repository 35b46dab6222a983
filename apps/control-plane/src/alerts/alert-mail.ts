// The alert e-mail: subject and plain-text body of one alert, naming what carries the limit.
import type { Kysely } from 'kysely';
import type { ControlDatabase } from '../db/schema.js';
import type { AlertRow, AlertSubjectKind } from './alerts.db.js';

const NOUN: Record<AlertSubjectKind, string> = {
  usage_limit_policy: 'Usage limits policy',
  api_key: 'API key',
  workspace: 'Workspace',
  provider: 'Provider',
  integration: 'Integration',
};

/** The name of the subject (or null once it is deleted: the id still says which it was). */
export async function subjectName(db: Kysely<ControlDatabase>, row: AlertRow): Promise<string | null> {
  const id = row.subject_id;
  const found =
    row.subject_kind === 'usage_limit_policy'
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
  return row.limit_type === 'cost' ? `${value.toFixed(2)} USD` : `${Math.round(value)} tokens`;
}

export interface AlertMail {
  readonly subject: string;
  readonly text: string;
}

/** `Usage limit reached: Usage limits policy "Team budget"` and a body with every fact of the alert. */
export function alertMail(row: AlertRow, name: string | null): AlertMail {
  const what = `${NOUN[row.subject_kind]} ${name === null ? row.subject_id : `"${name.replace(/[\r\n]+/g, ' ')}"`}`;
  const subject =
    row.kind === 'exhausted' ? `Usage limit reached: ${what}` : `Usage alert threshold reached: ${what}`;
  const group = Object.entries(row.group_values)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
  const lines = [
    row.kind === 'exhausted'
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
