import { GuardrailResult, GuardrailStage, RequestEvent } from '@aigw/proto';
import { describe, expect, it } from 'vitest';
import { GUARDRAIL_ACTOR, guardrailFeedbackId, guardrailFeedbackRows } from './guardrail-feedback.js';
import { requestLogRow } from './request-row.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const EVENT_ID = '3e000000-0000-4000-8000-000000000001';

type Results = Partial<GuardrailResult>[];
const event = (partial: Omit<Partial<RequestEvent>, 'guardrailResults'>) =>
  RequestEvent.fromPartial({
    schemaVersion: 1,
    id: EVENT_ID,
    traceId: 't-1',
    organisationId: 'org',
    workspaceId: 'ws',
    receivedAtMs: 1_000,
    ...partial,
    guardrailResults: [],
  });
/** The rows of an event with these results (its log row built without them: bad values do not encode). */
const rowsOf = (e: RequestEvent, results: Results) =>
  guardrailFeedbackRows(requestLogRow(e), {
    ...e,
    guardrailResults: results.map((r) => ({ ...GuardrailResult.fromPartial({}), ...r })),
  });

describe('guardrailFeedbackId', () => {
  it('is a uuid fixed by the event id (any case) and the result index, distinct per index', () => {
    const a = guardrailFeedbackId(EVENT_ID, 0);
    expect(a).toMatch(UUID);
    expect(guardrailFeedbackId(EVENT_ID.toUpperCase(), 0)).toBe(a);
    expect(guardrailFeedbackId(EVENT_ID, 1)).not.toBe(a);
    expect(guardrailFeedbackId('3e000000-0000-4000-8000-000000000002', 0)).not.toBe(a);
  });
});

describe('guardrailFeedbackRows', () => {
  it('one row per result with feedback, id by its index, inline guardrails without guardrail_id', () => {
    const rows = rowsOf(event({ completedAtMs: 2_000 }), [
      { guardrailId: 'g', stage: GuardrailStage.INPUT, verdict: true },
      { stage: GuardrailStage.OUTPUT, verdict: true, feedback: { value: 0, weight: 0 } },
    ]);
    expect(rows).toEqual([
      {
        id: guardrailFeedbackId(EVENT_ID, 1),
        trace_id: 't-1',
        organisation_id: 'org',
        workspace_id: 'ws',
        value: 0,
        weight: 0,
        metadata: JSON.stringify({
          source: 'guardrail',
          request_id: EVENT_ID,
          stage: 'output',
          verdict: 'pass',
        }),
        created_by: GUARDRAIL_ACTOR,
        created_at: new Date(2_000),
        updated_at: new Date(2_000),
      },
    ]);
  });

  it('none without trace or workspace, none for results without feedback', () => {
    const results = [{ verdict: false, feedback: { value: -1, weight: 1 } }];
    expect(rowsOf(event({ traceId: '' }), results)).toBeUndefined();
    expect(rowsOf(event({ workspaceId: '' }), results)).toBeUndefined();
    expect(rowsOf(event({}), [{ verdict: false }, {}])).toBeUndefined();
    expect(rowsOf(event({}), results)).toHaveLength(1);
  });

  it('leaves out values the feedback table refuses instead of failing the batch', () => {
    const bad = [
      { value: 11, weight: 1 },
      { value: -11, weight: 1 },
      { value: 1.5, weight: 1 },
      { value: 1, weight: 2 },
      { value: 1, weight: -0.1 },
      { value: 1, weight: Number.NaN },
    ];
    expect(
      rowsOf(
        event({}),
        bad.map((feedback) => ({ feedback })),
      ),
    ).toBeUndefined();
    const good = [...bad, { value: 10, weight: 1 }].map((feedback) => ({ feedback }));
    expect(rowsOf(event({}), good)?.map((r) => r.id)).toEqual([guardrailFeedbackId(EVENT_ID, 6)]);
  });
});
