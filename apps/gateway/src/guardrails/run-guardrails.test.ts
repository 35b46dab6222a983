import type { Guardrail, GuardrailCheck } from '@aigw/config-schema';
import { describe, expect, it } from 'vitest';
import {
  createGuardrailRunner,
  GUARDRAILS_PASSED,
  isGuardrailRunnerDisabled,
  runGuardrails,
} from './run-guardrails.js';
import type { GuardrailContext, WebhookCall, WebhookCaller } from './types.js';

const ctx: GuardrailContext = {
  phase: 'input',
  requestJson: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hello world' }] },
  metadata: {},
  provider: 'openai',
};
const passing: GuardrailCheck = { id: 'contains', parameters: { words: ['hello'], operator: 'any' } };
const failing: GuardrailCheck = { id: 'contains', parameters: { words: ['goodbye'], operator: 'any' } };
const inline = (checks: GuardrailCheck[], options: { id?: string; deny?: boolean; async?: boolean } = {}) =>
  ({ type: 'inline', checks, deny: false, async: false, ...options }) as const satisfies Guardrail;
const noWebhook: WebhookCaller = async () => ({ verdict: false, error: 'unused' });
const deps = { webhook: noWebhook };

describe('runGuardrails', () => {
  it('passes when every check of every guardrail passes', async () => {
    const outcome = await runGuardrails([inline([passing]), inline([passing, passing])], ctx, deps);
    expect(outcome).toMatchObject({ verdict: true, denied: false });
    expect(outcome.results.map((r) => r.verdict)).toEqual([true, true]);
    expect(outcome.asyncResults).toBeUndefined();
  });

  it('fails without denying when the failing guardrail has no deny', async () => {
    const outcome = await runGuardrails(
      [inline([passing], { deny: true }), inline([passing, failing])],
      ctx,
      deps,
    );
    expect(outcome).toMatchObject({ verdict: false, denied: false });
    expect(outcome.results[1]!.checks.map((c) => c.verdict)).toEqual([true, false]);
  });

  it('denies when a failing guardrail has deny', async () => {
    const outcome = await runGuardrails([inline([passing]), inline([failing], { deny: true })], ctx, deps);
    expect(outcome).toMatchObject({ verdict: false, denied: true });
    expect(outcome.results[1]).toMatchObject({ verdict: false, deny: true });
  });

  it("carries the feedback of the outcome's action: on_fail when failing, on_success when passing", async () => {
    const actions = {
      on_fail: { feedback: { value: -4, weight: 0.5 } },
      on_success: { feedback: { value: 2, weight: 1 } },
    };
    const outcome = await runGuardrails(
      [
        { ...inline([failing]), ...actions },
        { ...inline([passing]), ...actions },
        { ...inline([failing]), on_success: actions.on_success },
        { ...inline([passing]), on_fail: actions.on_fail },
        inline([failing]),
      ],
      ctx,
      deps,
    );
    expect(outcome.results.map((r) => r.feedback)).toEqual([
      { value: -4, weight: 0.5 },
      { value: 2, weight: 1 },
      undefined,
      undefined,
      undefined,
    ]);
    expect(outcome.results.map((r) => 'feedback' in r)).toEqual([true, true, false, false, false]);
  });

  it('labels guardrails by id, else by their place in the phase list', async () => {
    const outcome = await runGuardrails(
      [inline([passing], { id: 'greeting' }), inline([passing])],
      ctx,
      deps,
    );
    expect(outcome.results.map((r) => r.id)).toEqual(['greeting', 'input_guardrails[1]']);
    const out = await runGuardrails(
      [inline([passing])],
      { ...ctx, phase: 'output', responseText: 'hello' },
      deps,
    );
    expect(out.results[0]!.id).toBe('output_guardrails[0]');
  });

  it('runs async guardrails after the outcome, never letting them decide', async () => {
    const calls: WebhookCall[] = [];
    const webhook: WebhookCaller = async (call) => {
      calls.push(call);
      return { verdict: false, data: { reason: 'flagged' } };
    };
    const hook: GuardrailCheck = {
      id: 'webhook',
      parameters: { url: 'https://hooks.example.com/check', headers: {}, timeout: 10_000 },
    };
    const outcome = await runGuardrails([inline([passing]), inline([hook, failing], { async: true })], ctx, {
      webhook,
    });
    expect(outcome).toMatchObject({ verdict: true, denied: false });
    expect(outcome.results).toHaveLength(1);
    expect(calls).toHaveLength(0);
    const later = await outcome.asyncResults!;
    expect(later).toHaveLength(1);
    expect(later[0]).toMatchObject({ id: 'input_guardrails[1]', verdict: false, deny: false, async: true });
    expect(later[0]!.checks[0]).toMatchObject({ id: 'webhook', verdict: false, data: { reason: 'flagged' } });
    expect(calls).toHaveLength(1);
  });

  it('fails closed when a check throws', async () => {
    const bad: GuardrailCheck = { id: 'json_schema', parameters: { schema: { pattern: '(x)\\1' } } };
    const json = { ...ctx, requestJson: { prompt: '"xxxx"' } };
    const outcome = await runGuardrails([inline([bad], { deny: true })], json, deps);
    expect(outcome.denied).toBe(true);
    expect(outcome.results[0]!.checks[0]).toMatchObject({
      verdict: false,
      explanation: 'the check failed to run',
    });
    expect(outcome.results[0]!.checks[0]!.error).toMatch(/refused/);
  });

  it('fails, without denying, a saved guardrail the caller did not resolve', async () => {
    const outcome = await runGuardrails([{ type: 'ref', id: 'pii-guard' }], ctx, deps);
    expect(outcome).toMatchObject({ verdict: false, denied: false });
    expect(outcome.results[0]!.checks[0]!.error).toBe('guardrail pii-guard was not resolved before the run');
  });

  it('measures durations with the given clock', async () => {
    let t = 0;
    const outcome = await runGuardrails([inline([passing, failing])], ctx, { ...deps, now: () => (t += 5) });
    const [result] = outcome.results;
    expect(result!.checks.map((c) => c.durationMs)).toEqual([5, 5]);
    expect(result!.durationMs).toBe(25);
  });

  it('shares one regex budget across the checks of a run', async () => {
    // Near the program size limit: RE2's DFA gives up on it, a step per instruction and character.
    const slow: GuardrailCheck = {
      id: 'regex_match',
      parameters: { pattern: '[a-h]*a[a-h]{900}z', not: false },
    };
    const quick: GuardrailCheck = { id: 'regex_match', parameters: { pattern: 'a', not: false } };
    let seed = 7;
    let mixed = '';
    for (let i = 0; i < 60_000; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      mixed += 'abcdefgh'[seed % 8];
    }
    const long = { ...ctx, requestJson: { prompt: `${mixed}z` } };
    const outcome = await runGuardrails([inline([slow]), inline([quick])], long, {
      ...deps,
      regexBudgetMs: 10,
    });
    expect(outcome.results.map((r) => r.checks[0]!.error)).toEqual([
      expect.stringMatching(/budget/),
      expect.stringMatching(/budget/),
    ]);
  });

  it('answers the passing outcome for an empty list', async () => {
    expect(await runGuardrails([], ctx, deps)).toBe(GUARDRAILS_PASSED);
  });
});

describe('createGuardrailRunner', () => {
  it('runs nothing when GUARDRAILS_ENABLED is off', async () => {
    const run = createGuardrailRunner({ GUARDRAILS_ENABLED: false }, deps);
    expect(await run([inline([failing], { deny: true })], ctx)).toBe(GUARDRAILS_PASSED);
    expect(isGuardrailRunnerDisabled(run)).toBe(true);
  });

  it('runs the guardrails when it is on', async () => {
    const run = createGuardrailRunner({ GUARDRAILS_ENABLED: true, GUARDRAILS_REGEX_BUDGET_MS: 100 }, deps);
    expect(await run([inline([failing], { deny: true })], ctx)).toMatchObject({
      verdict: false,
      denied: true,
    });
    expect(isGuardrailRunnerDisabled(run)).toBe(false);
  });
});
