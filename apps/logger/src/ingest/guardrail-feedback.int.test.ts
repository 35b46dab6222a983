// Guardrail feedback against real Postgres (and NATS for the consumer path): a stored request event
// whose guardrail results carry feedback adds one feedback row per such result, in the log row's
// transaction; a replayed event adds none; the rows show where user feedback shows (the log, the
// feedback listing, the summary).
import { randomUUID } from 'node:crypto';
import {
  GetLogRequest,
  type GetLogResponse,
  GetSummaryRequest,
  type GetSummaryResponse,
  GuardrailStage,
  ListFeedbackRequest,
  type ListFeedbackResponse,
  RequestEvent,
  UpdateFeedbackRequest,
  type UpdateFeedbackResponse,
} from '@aigw/proto';
import { test } from '@aigw/testkit';
import { status } from '@grpc/grpc-js';
import { describe, expect } from 'vitest';
import {
  call,
  callerOf,
  filterOf,
  KEYS,
  ORG_A,
  openLogsDatabase,
  startService,
  storeEvents,
  T0,
  WS,
} from '../query/query.test-support.js';
import { count, eventually, testLogger, testStreams } from '../testing/logger-harness.js';
import { batchBytes } from '../testing/request-events.js';
import { guardrailFeedbackId } from './guardrail-feedback.js';

const GUARD_ID = '6a000000-0000-4000-8000-000000000001';

function guardedEvent(traceId: string, withFeedback: boolean): RequestEvent {
  return RequestEvent.fromPartial({
    schemaVersion: 1,
    id: randomUUID(),
    traceId,
    receivedAtMs: T0 + 1_000,
    completedAtMs: T0 + 1_250,
    organisationId: ORG_A,
    workspaceId: WS[1],
    apiKeyId: KEYS[1],
    method: 'POST',
    path: '/chat/completions',
    statusCode: 246,
    guardrailResults: [
      {
        guardrailId: GUARD_ID,
        stage: GuardrailStage.INPUT,
        verdict: false,
        checks: [{ checkId: 'required_metadata_keys', verdict: false }],
        ...(withFeedback && { feedback: { value: -6, weight: 0.5 } }),
      },
      {
        guardrailId: '',
        stage: GuardrailStage.OUTPUT,
        verdict: true,
        checks: [{ checkId: 'valid_json', verdict: true }],
      },
    ],
  });
}

describe('guardrail feedback', () => {
  test('one row per result with feedback, once however often the event is stored', async ({ pg }) => {
    const database = await openLogsDatabase(pg);
    const svc = await startService(database.db);
    try {
      const traced = `trace-${randomUUID()}`;
      const event = guardedEvent(traced, true);
      const plain = guardedEvent(`trace-${randomUUID()}`, false);
      await storeEvents(database.db, [event, plain]);
      const rows = () =>
        pg.pool.query(
          `select id, trace_id, organisation_id, workspace_id, value, weight, metadata, created_by, created_at
           from logs.feedback where trace_id = any($1) order by trace_id`,
          [[traced, plain.traceId]],
        );
      const first = await rows();
      expect(first.rows).toEqual([
        {
          id: guardrailFeedbackId(event.id, 0),
          trace_id: traced,
          organisation_id: ORG_A,
          workspace_id: WS[1],
          value: -6,
          weight: 0.5,
          metadata: {
            source: 'guardrail',
            request_id: event.id,
            guardrail_id: GUARD_ID,
            stage: 'input',
            verdict: 'fail',
          },
          created_by: JSON.stringify({ type: 'ACTOR_TYPE_SYSTEM', displayName: 'guardrail' }),
          created_at: new Date(T0 + 1_250),
        },
      ]);

      // The same event again, alone and twice in one batch: no second row.
      await storeEvents(database.db, [event]);
      await storeEvents(database.db, [event, event, plain]);
      expect((await rows()).rows).toEqual(first.rows);

      // Shown on the log of the trace, listed, and counted in the summary like any feedback.
      const log = await call<GetLogRequest, GetLogResponse>(
        svc.client.getLog,
        svc.client,
        GetLogRequest.fromPartial({ caller: callerOf(), id: event.id }),
      );
      expect(log.log?.feedback).toMatchObject([
        {
          value: -6,
          weight: 0.5,
          metadata: { source: 'guardrail', guardrail_id: GUARD_ID, stage: 'input', verdict: 'fail' },
          createdBy: { type: 3, displayName: 'guardrail' },
        },
      ]);
      const listed = await call<ListFeedbackRequest, ListFeedbackResponse>(
        svc.client.listFeedback,
        svc.client,
        ListFeedbackRequest.fromPartial({ caller: callerOf(), traceIds: [traced] }),
      );
      expect(listed.feedback.map((f) => f.id)).toEqual([guardrailFeedbackId(event.id, 0)]);
      const summary = await call<GetSummaryRequest, GetSummaryResponse>(
        svc.client.getSummary,
        svc.client,
        GetSummaryRequest.fromPartial({ caller: callerOf(), filter: filterOf({ traceId: traced }) }),
      );
      expect(summary.feedbackCount).toBe(1);
      expect(summary.avgFeedback).toBe(-6);

      // A caller limited to its own keys' data cannot change it as its own: the gateway gave it.
      await expect(
        call<UpdateFeedbackRequest, UpdateFeedbackResponse>(
          svc.client.updateFeedback,
          svc.client,
          UpdateFeedbackRequest.fromPartial({
            caller: callerOf({
              restrictToApiKeys: true,
              restrictToApiKeyIds: [KEYS[1]],
              actor: { type: 2, userId: '', apiKeyId: KEYS[1], displayName: 'k' },
            }),
            id: guardrailFeedbackId(event.id, 0),
            value: 10,
          }),
        ),
      ).rejects.toMatchObject({ code: status.NOT_FOUND });
    } finally {
      await svc.close();
      await database.close();
    }
  });

  test('the consumer stores it with the log, and a replay under another message id adds none', async ({
    pg,
    nats,
  }) => {
    const app = testLogger(pg, nats);
    await app.start();
    try {
      const subject = testStreams(nats).requests.subjects[0] ?? '';
      const event = guardedEvent(`trace-${randomUUID()}`, true);
      const plain = guardedEvent(`trace-${randomUUID()}`, false);
      await nats.js.publish(subject, batchBytes([event, plain]), { msgID: `first-${event.id}` });
      const feedbackOf = (traceId: string) =>
        count(pg, 'select count(*) as n from logs.feedback where trace_id = $1', [traceId]);
      await eventually(
        () =>
          count(pg, 'select count(*) as n from logs.request_logs where id = any($1)', [[event.id, plain.id]]),
        (n) => n === 2,
      );
      expect(await feedbackOf(event.traceId)).toBe(1);
      expect(await feedbackOf(plain.traceId)).toBe(0);
      // The replay, then a marker batch: once the marker is stored, the replay was handled before it.
      const marker = guardedEvent(`trace-${randomUUID()}`, true);
      await nats.js.publish(subject, batchBytes([event]), { msgID: `replay-${event.id}` });
      await nats.js.publish(subject, batchBytes([marker]), { msgID: `marker-${marker.id}` });
      await eventually(
        () => feedbackOf(marker.traceId),
        (n) => n === 1,
      );
      await eventually(
        () => count(pg, 'select count(*) as n from logs.request_logs where id = $1', [event.id]),
        (n) => n === 1,
      );
      expect(await feedbackOf(event.traceId)).toBe(1);
      expect(
        await count(pg, 'select count(*) as n from logs.feedback where trace_id = any($1)', [
          [event.traceId, plain.traceId, marker.traceId],
        ]),
      ).toBe(2);
    } finally {
      await app.stop();
    }
  });
});
