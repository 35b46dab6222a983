// Issue 23 items 2 and 3 at the logger: an audit record is never dropped for its content (unpaired
// surrogates, a row Postgres refuses), records without an organisation are kept and shown to
// organisation-level readers, and an audit dead letter leaves an `audit.dead_letter` record.
import { randomUUID } from 'node:crypto';
import { AuditEvent, AuditOutcome, ListAuditEventsRequest, SCHEMA_VERSION } from '@aigw/proto';
import { test } from '@aigw/testkit';
import { describe, expect } from 'vitest';
import { listAuditEvents } from '../query/audit.query.js';
import { callerOf, ORG_A, openLogsDatabase, WS } from '../query/query.test-support.js';
import { count, eventually, testLogger, testStreams } from '../testing/logger-harness.js';

function auditEvent(partial: Partial<AuditEvent>): AuditEvent {
  return AuditEvent.fromPartial({
    schemaVersion: SCHEMA_VERSION,
    id: randomUUID(),
    occurredAtMs: Date.now(),
    organisationId: ORG_A,
    actor: { type: 2, apiKeyId: 'k-1', displayName: 'admin key' },
    action: 'workspaces.create',
    resourceType: 'workspace',
    requestMethod: 'POST',
    requestPath: '/v1/workspaces',
    requestDetailsJson: '{"body":{"name":"ops"}}',
    outcome: AuditOutcome.SUCCESS,
    statusCode: 201,
    ...partial,
  });
}

/** Random text a btree index cannot compress below its row limit (~2.7 kB). */
const incompressible = () =>
  Array.from({ length: 2_000 }, () => Math.random().toString(36).slice(2, 7)).join('');

describe('audit ingest', () => {
  test('stores every audit record whatever its content, and makes dead letters visible', async ({
    pg,
    nats,
  }) => {
    const app = testLogger(pg, nats);
    await app.start();
    const subject = testStreams(nats).audit.subjects[0] ?? '';
    const database = await openLogsDatabase(pg);
    try {
      // JSON text with a lone surrogate escape (what JSON.stringify writes for "ops\ud800"), and a
      // lone surrogate and a NUL in plain fields: jsonb and text refuse them as they are.
      const surrogate = auditEvent({
        requestDetailsJson: JSON.stringify({ body: { name: 'ops\ud800', '\udc00k': 'v\u0000' } }),
        actor: { type: 2, userId: '', apiKeyId: 'k-1', displayName: 'key \ud800' },
        userAgent: 'agent\udfff',
      });
      // No organisation: a refused token whose organisation could not be known.
      const unattributed = auditEvent({
        organisationId: '',
        action: 'auth.token_rejected.bad_signature',
        resourceType: 'token',
        outcome: AuditOutcome.FAILURE,
        statusCode: 401,
      });
      // Storable text Postgres still refuses: an index row too large for the resource index.
      const refused = auditEvent({ resourceId: incompressible(), workspaceId: WS[0] });
      // Not an audit record at all (id not a uuid): a dead letter, and a record standing for it.
      const invalid = auditEvent({ id: 'not-a-uuid', action: 'api_keys.create' });
      // A time no Date can hold: a dead letter too, whose stand-in takes the time it was set aside.
      const timeless = auditEvent({ occurredAtMs: 9e15, action: 'api_keys.delete' });
      for (const [i, event] of [surrogate, unattributed, refused, invalid, timeless].entries())
        await nats.js.publish(subject, AuditEvent.encode(event).finish(), { msgID: `audit-${i}` });

      await eventually(
        () => count(pg, 'select count(*) as n from logs.audit_logs'),
        (n) => n === 5,
      );
      const rows = await pg.pool.query(
        'select id, organisation_id, action, actor_display_name, user_agent, resource_id, request_details from logs.audit_logs',
      );
      const byId = new Map(rows.rows.map((r) => [r.id, r]));
      expect(byId.get(surrogate.id)).toMatchObject({
        organisation_id: ORG_A,
        actor_display_name: 'key \ufffd',
        user_agent: 'agent\ufffd',
        request_details: { body: { name: 'ops\ufffd', '\ufffdk': 'v' } },
      });
      expect(byId.get(unattributed.id)).toMatchObject({
        organisation_id: null,
        action: 'auth.token_rejected.bad_signature',
      });
      const reduced = byId.get(refused.id);
      expect(reduced?.resource_id).toBe(refused.resourceId.slice(0, 255));
      expect(reduced?.request_details.unstorable_details).toMatch(/index row/);

      expect(await count(pg, 'select count(*) as n from logs.dead_letters')).toBe(2);
      const standIns = rows.rows.filter((r) => r.action === 'audit.dead_letter');
      const standIn = standIns.find((r) => r.request_details.original_action === 'api_keys.create');
      expect(standIn).toMatchObject({
        organisation_id: ORG_A,
        resource_id: null,
        request_details: { error: 'id is not a uuid', event_index: 0, original_action: 'api_keys.create' },
      });
      const timelessStandIn = standIns.find((r) => r.request_details.original_action === 'api_keys.delete');
      expect(timelessStandIn).toMatchObject({
        organisation_id: ORG_A,
        resource_id: timeless.id,
        request_details: { error: 'occurred_at_ms is out of range' },
      });
      const metrics = await (await fetch(`http://127.0.0.1:${app.ports.http}/metrics`)).text();
      expect(metrics).toMatch(
        /logger_ingest_events_total\{stream="audit",outcome="dead_letter",app="logger"\} 2/,
      );

      // Readers: an organisation-level caller sees its own records, never the unattributed one (it
      // belongs to no tenant); the platform scope lists only unattributed records; a
      // workspace-bound caller sees neither organisation-level nor unattributed records.
      const list = (caller = callerOf(), unattributed = false) =>
        listAuditEvents(
          database.db,
          ListAuditEventsRequest.fromPartial({ caller, pageSize: 50, unattributed }),
        );
      const orgLevel = await list();
      expect(orgLevel.events.map((e) => e.id).sort()).toEqual(
        [surrogate.id, refused.id, standIn?.id, timelessStandIn?.id].sort(),
      );
      const other = await list(callerOf({ organisationId: '0c000000-0000-4000-8000-000000000009' }));
      expect(other.events.map((e) => e.id)).toEqual([]);
      const platform = await list(callerOf(), true);
      expect(platform.events.map((e) => [e.id, e.organisationId])).toEqual([[unattributed.id, '']]);
      const workspace = await list(callerOf({ allWorkspaces: false, workspaceIds: [WS[0]] }));
      expect(workspace.events.map((e) => e.id)).toEqual([refused.id]);
    } finally {
      await database.close();
      await app.stop();
    }
  });
});
