// One audit record in full: who did what to which resource, from where, with what outcome, and
// the request details the control plane kept (secrets already redacted by the API), as JSON text.
import type { ApiPaths } from '../api/client.js';
import { FactsTable } from '../components/facts-table.js';
import { formatTime } from '../components/format.js';
import { JsonView } from '../components/json-view.js';

type Listed =
  ApiPaths['/audit-logs']['get']['responses']['200']['content']['application/json']['data'][number];

/** A listed record with the fields the OpenAPI document leaves open (logs.entity.ts auditToApi). */
export type AuditRecord = Listed & {
  readonly workspace_id: string | null;
  readonly user_agent: string | null;
  readonly method: string | null;
  readonly path: string | null;
  readonly request_details: unknown;
  readonly trace_id: string | null;
};

export function AuditRecordDetail({ record: r }: { record: AuditRecord }) {
  const rows: [string, string][] = [
    ['Record id', r.id],
    ['Time', formatTime(r.timestamp)],
    ['Action', r.action],
    ['Resource', `${r.resource_type}${r.resource_id ? ` ${r.resource_id}` : ''}`],
    ['Outcome', `${r.status} (${r.status_code})`],
    ['Actor', `${r.actor.display_name ?? '–'} (${r.actor.type})`],
    ['Actor user id', r.actor.user_id ?? '–'],
    ['Actor API key id', r.actor.api_key_id ?? '–'],
    ['Organisation', r.organisation_id ?? 'none (unattributed)'],
    ['Workspace', r.workspace_id ?? '–'],
    ['Request', `${r.method ?? ''} ${r.path ?? ''}`.trim() || '–'],
    ['IP', r.ip ?? '–'],
    ['User agent', r.user_agent ?? '–'],
    ['Trace id', r.trace_id ?? '–'],
  ];
  return (
    <div class="audit-detail grid" data-testid="audit-detail">
      <FactsTable rows={rows} />
      <div>
        <h4>Request details</h4>
        <JsonView value={r.request_details} label="Request details" testId="audit-request-details" />
      </div>
    </div>
  );
}
