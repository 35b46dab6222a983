// Feedback belongs to the workspace of the trace it names (issue 17 item 1). Feedback given before
// that rule by a caller of another workspace is moved to the trace's workspace when the trace was
// logged in exactly one workspace of the organisation (else it stays where it was). Listing reads
// an organisation's feedback per workspace, newest first.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    update feedback f set workspace_id = t.workspace_id
      from (
        select r.organisation_id, r.trace_id, min(r.workspace_id) as workspace_id
        from request_logs r
        where r.trace_id is not null and r.workspace_id is not null
          and (r.organisation_id, r.trace_id) in (select organisation_id, trace_id from feedback)
        group by r.organisation_id, r.trace_id
        having count(distinct r.workspace_id) = 1
      ) t
      where f.organisation_id = t.organisation_id and f.trace_id = t.trace_id
        and f.workspace_id is distinct from t.workspace_id;
    create index feedback_org_workspace_time on feedback (organisation_id, workspace_id, created_at desc, id desc);
  `.execute(db);
}
