// Saved guardrails' outcome actions in control-plane mode over a snapshot: `actions.on_fail` /
// `actions.on_success` feedback reaches the published request event on the guardrail's result (the
// logger records it as feedback on the trace), only for the outcome that happened, never denying by
// itself; inline guardrails of an `x-service-config` carry the same actions.
import { randomUUID } from 'node:crypto';
import { type Entity, GuardrailStage } from '@aigw/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiKey,
  type ControlPlaneGateway,
  integration,
  organisation,
  provider,
  savedGuardrail,
  startControlPlaneGateway,
  workspace,
} from '../../test/control-plane-entities.js';

const ORG = randomUUID();
const WS = randomUUID();
const KEY = `aigw_${randomUUID()}`;
const INT = randomUUID();
const NEEDS_TEAM = randomUUID();
const ON_SUCCESS = randomUUID();
const NO_FEEDBACK = randomUUID();

let gw: ControlPlaneGateway;

/** A `required_metadata_keys: [team]` guardrail as the control plane publishes it. */
function guardrail(id: string, slug: string, actions: Record<string, unknown>): Entity {
  return savedGuardrail(id, ORG, WS, slug, {
    checks: [{ id: 'required_metadata_keys', parameters: { keys: ['team'] } }],
    actions: { deny: false, ...actions },
  });
}

async function ask(config: unknown, metadata?: Record<string, string>) {
  const trace = randomUUID();
  const res = await fetch(`${gw.base}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-api-key': KEY,
      'x-service-config': JSON.stringify(config),
      'x-service-trace-id': trace,
      ...(metadata && { 'x-service-metadata': JSON.stringify(metadata) }),
    },
    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }] }),
  });
  await res.arrayBuffer();
  return { status: res.status, event: await gw.eventFor(trace) };
}

const withGuards = (input: unknown[], output: unknown[] = []) => ({
  provider: '@openai-prod',
  input_guardrails: input,
  ...(output.length > 0 && { output_guardrails: output }),
});

beforeAll(async () => {
  gw = await startControlPlaneGateway([], {}, { apiKeys: { openai: ['sk-managed'] } });
  gw.use([
    organisation(ORG),
    workspace(WS, ORG),
    apiKey(KEY, ORG, WS),
    integration(INT, ORG, {
      credentials: { api_key: 'sk-managed' },
      options: { custom_host: `${gw.mock.url}/v1` },
    }),
    provider(randomUUID(), ORG, WS, 'openai-prod', { integrationId: INT }),
    guardrail(NEEDS_TEAM, 'needs-team', {
      on_fail: { feedback: { value: -7, weight: 0.25 } },
      on_success: { feedback: { value: 5, weight: 1 } },
    }),
    guardrail(ON_SUCCESS, 'success-only', { on_success: { feedback: { value: 9, weight: 0.5 } } }),
    guardrail(NO_FEEDBACK, 'no-feedback', { on_fail: {}, on_success: {} }),
  ]);
});

afterAll(async () => {
  await gw?.close();
});

describe('saved guardrail feedback actions', () => {
  it("a failing check puts on_fail's feedback on the guardrail's result, without denying", async () => {
    const { status, event } = await ask(withGuards(['needs-team', 'success-only', 'no-feedback']));
    expect(status).toBe(246);
    expect(event.guardrailResults).toHaveLength(3);
    expect(event.guardrailResults[0]).toMatchObject({
      guardrailId: NEEDS_TEAM,
      stage: GuardrailStage.INPUT,
      verdict: false,
      denied: false,
      feedback: { value: -7, weight: 0.25 },
    });
    // success-only has no on_fail feedback; no-feedback has empty actions.
    expect(event.guardrailResults[1]).toMatchObject({ guardrailId: ON_SUCCESS, verdict: false });
    expect(event.guardrailResults[1]!.feedback).toBeUndefined();
    expect(event.guardrailResults[2]).toMatchObject({ guardrailId: NO_FEEDBACK, verdict: false });
    expect(event.guardrailResults[2]!.feedback).toBeUndefined();
  });

  it("a passing guardrail puts on_success's feedback on its result, input and output alike", async () => {
    const { status, event } = await ask(withGuards(['needs-team', 'no-feedback'], ['success-only']), {
      team: 'search',
    });
    expect(status).toBe(200);
    expect(event.guardrailResults.map((g) => [g.guardrailId, g.stage, g.verdict, g.feedback])).toEqual([
      [NEEDS_TEAM, GuardrailStage.INPUT, true, { value: 5, weight: 1 }],
      [NO_FEEDBACK, GuardrailStage.INPUT, true, undefined],
      [ON_SUCCESS, GuardrailStage.OUTPUT, true, { value: 9, weight: 0.5 }],
    ]);
  });

  it('inline guardrails of an x-service-config carry the same actions', async () => {
    const inline = {
      checks: [{ id: 'required_metadata_keys', parameters: { keys: ['team'] } }],
      on_fail: { feedback: { value: -2 } },
    };
    const failed = await ask(withGuards([inline]));
    expect(failed.status).toBe(246);
    expect(failed.event.guardrailResults).toMatchObject([
      { guardrailId: '', verdict: false, feedback: { value: -2, weight: 1 } },
    ]);
    const passed = await ask(withGuards([inline]), { team: 'x' });
    expect(passed.event.guardrailResults).toHaveLength(1);
    expect(passed.event.guardrailResults[0]!.feedback).toBeUndefined();
  });

  it('feedback out of range is refused like the control plane refuses it (400, its path as param)', async () => {
    const res = await fetch(`${gw.base}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-service-api-key': KEY,
        'x-service-config': JSON.stringify(
          withGuards([{ checks: [{ id: 'valid_json' }], on_fail: { feedback: { value: -11 } } }]),
        ),
      },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }] }),
    });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { param: string; type: string } };
    expect(error.param).toBe('config.input_guardrails[0].on_fail.feedback.value');
  });
});
