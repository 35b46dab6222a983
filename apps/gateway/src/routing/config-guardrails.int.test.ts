// Input and output guardrails of a config through the gateway app: pass, fail (246) and deny (446),
// on JSON and streamed answers, and what the request event records.
import { randomUUID } from 'node:crypto';
import { GuardrailStage } from '@aigw/proto';
import { test } from '@aigw/testkit';
import { afterAll, describe, expect } from 'vitest';
import { eventFor as eventOf, type Harness, startHarness } from '../../test/harness.js';

let h: Harness;

interface HookResults {
  before_request_hooks: Array<{
    verdict: boolean;
    deny: boolean;
    checks: Array<{ id: string; verdict: boolean }>;
  }>;
  after_request_hooks: Array<{
    verdict: boolean;
    deny: boolean;
    checks: Array<{ id: string; verdict: boolean }>;
  }>;
}

const noPassword = (deny: boolean) => ({
  deny,
  checks: [{ id: 'contains', parameters: { words: ['password'], operator: 'none' } }],
});
const json = (deny: boolean) => ({ deny, checks: [{ id: 'valid_json' }] });

function target(extra: Record<string, unknown>) {
  return { provider: 'openai', api_key: 'sk-g', custom_host: `${h.mock.url}/v1`, ...extra };
}

function ask(config: unknown, content: string, headers: Record<string, string> = {}, stream = false) {
  return fetch(`${h.base}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-config': JSON.stringify(config), ...headers },
    body: JSON.stringify({ model: 'gpt-4o', stream, messages: [{ role: 'user', content }] }),
  });
}

afterAll(async () => {
  await h?.close();
});

const eventForTrace = (traceId: string) => eventOf(h, traceId);

describe('guardrails end to end', () => {
  test('set up', async ({ nats }) => {
    h = await startHarness(nats);
  });

  test('an input guardrail with deny answers 446 and never calls the provider', async () => {
    const trace = randomUUID();
    const calls = h.mock.requests.length;
    const res = await ask(target({ input_guardrails: [noPassword(true)] }), 'my password is hunter2', {
      'x-service-trace-id': trace,
    });
    expect(res.status).toBe(446);
    expect(res.headers.get('x-service-gateway-error')).toBe('true');
    expect(res.headers.get('x-service-last-used-option-index')).toBe('config');
    const body = (await res.json()) as { error: { code: string }; hook_results: HookResults };
    expect(body.error.code).toBe('guardrail_denied');
    expect(body.hook_results.before_request_hooks[0]).toMatchObject({ verdict: false, deny: true });
    expect(h.mock.requests.length).toBe(calls);
    const event = await eventForTrace(trace);
    expect(event.statusCode).toBe(446);
    expect(event.error?.code).toBe('guardrail_denied');
    expect(event.attempts).toEqual([]);
    expect(event.guardrailResults).toMatchObject([
      {
        stage: GuardrailStage.INPUT,
        verdict: false,
        denied: true,
        checks: [{ checkId: 'contains', verdict: false }],
      },
    ]);
  });

  test('an input guardrail without deny lets the request through as 246 with hook_results', async () => {
    const res = await ask(target({ input_guardrails: [noPassword(false)] }), 'my password is hunter2');
    expect(res.status).toBe(246);
    expect(res.headers.get('x-service-gateway-error')).toBeNull();
    const body = (await res.json()) as { object: string; hook_results: HookResults };
    expect(body.object).toBe('chat.completion');
    expect(body.hook_results.before_request_hooks[0]).toMatchObject({ verdict: false, deny: false });
    expect(body.hook_results.after_request_hooks).toEqual([]);
  });

  test('passing input guardrails leave the answer untouched', async () => {
    const res = await ask(target({ input_guardrails: [noPassword(true)] }), 'hello there');
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(h.mock.requests.at(-1)?.response?.body.toString());
  });

  test('an output guardrail with deny answers 446 after the provider was called', async () => {
    const trace = randomUUID();
    const calls = h.mock.requests.length;
    const res = await ask(target({ output_guardrails: [json(true)] }), 'not json at all', {
      'x-service-trace-id': trace,
    });
    expect(res.status).toBe(446);
    const body = (await res.json()) as { error: { code: string }; hook_results: HookResults };
    expect(body.hook_results.after_request_hooks[0]).toMatchObject({ verdict: false, deny: true });
    expect(h.mock.requests.length).toBe(calls + 1);
    const event = await eventForTrace(trace);
    expect(event.attempts.map((a) => a.statusCode)).toEqual([200]);
    expect(event.guardrailResults[0]).toMatchObject({ stage: GuardrailStage.OUTPUT, denied: true });
  });

  test('an output guardrail without deny answers 246 with the provider body and hook_results', async () => {
    const res = await ask(target({ output_guardrails: [json(false)] }), 'not json at all');
    expect(res.status).toBe(246);
    const body = (await res.json()) as { choices: unknown[]; hook_results: HookResults };
    expect(body.choices).toHaveLength(1);
    expect(body.hook_results.after_request_hooks[0]?.checks[0]).toMatchObject({
      id: 'valid_json',
      verdict: false,
    });
  });

  test('passing output guardrails send the provider bytes unchanged', async () => {
    const check = { checks: [{ id: 'regex_match', parameters: { pattern: 'alpha' } }] };
    const res = await ask(target({ output_guardrails: [check] }), 'alpha beta');
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(h.mock.requests.at(-1)?.response?.body.toString());
  });

  test('output guardrails read a streamed answer: a failure is 246 with the stream unchanged', async () => {
    const check = { checks: [{ id: 'character_count', parameters: { max: 5 } }] };
    const res = await ask(target({ output_guardrails: [check] }), 'a longer streamed answer', {}, true);
    expect(res.status).toBe(246);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await res.text()).toBe(h.mock.requests.at(-1)?.response?.body.toString());
    const passing = { checks: [{ id: 'contains', parameters: { words: ['streamed answer'] } }] };
    const ok = await ask(target({ output_guardrails: [passing] }), 'a longer streamed answer', {}, true);
    expect(ok.status).toBe(200);
  });

  test('a fallback moves on from a target whose input guardrail denies', async () => {
    const res = await ask(
      {
        strategy: { mode: 'fallback' },
        targets: [target({ input_guardrails: [noPassword(true)] }), target({})],
      },
      'my password is hunter2',
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('x-service-last-used-option-index')).toBe('config.targets[1]');
  });

  test('async guardrails never hold the answer; their results reach the event', async () => {
    const trace = randomUUID();
    const res = await ask(
      target({ output_guardrails: [{ async: true, checks: [{ id: 'valid_json' }] }] }),
      'plain words',
      { 'x-service-trace-id': trace },
    );
    expect(res.status).toBe(200);
    await res.text();
    const event = await eventForTrace(trace);
    expect(event.guardrailResults).toMatchObject([
      { stage: GuardrailStage.OUTPUT, verdict: false, denied: false, checks: [{ checkId: 'valid_json' }] },
    ]);
  });
});
