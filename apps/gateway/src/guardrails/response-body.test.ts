import { describe, expect, it } from 'vitest';
import {
  GUARDRAIL_DENIED_HEADERS,
  GUARDRAIL_DENIED_STATUS,
  GUARDRAIL_FAILED_STATUS,
  guardrailResponseBody,
  guardrailStatus,
  hookResults,
} from './response-body.js';
import type { GuardrailOutcome, GuardrailResult } from './types.js';

const result = (id: string, verdict: boolean, deny = false): GuardrailResult => ({
  id,
  verdict,
  deny,
  async: false,
  durationMs: 1.23456,
  checks: [
    {
      id: 'pii',
      verdict,
      explanation: verdict ? 'no PII found' : 'PII found: email',
      durationMs: 0.5,
      ...(!verdict && { data: { categories: ['email'] } }),
    },
  ],
});
const outcome = (...results: GuardrailResult[]): GuardrailOutcome => ({
  verdict: results.every((r) => r.verdict),
  denied: results.some((r) => !r.verdict && r.deny),
  results,
});

const passed = outcome(result('a', true));
const failed = outcome(result('a', true), result('b', false));
const denied = outcome(result('c', false, true));

describe('guardrailStatus', () => {
  it('is 446 when a guardrail denied, in either phase', () => {
    expect(guardrailStatus({ input: denied })).toBe(GUARDRAIL_DENIED_STATUS);
    expect(guardrailStatus({ input: failed, output: denied }, 200)).toBe(446);
  });

  it('is 246 when one failed without deny and the provider answered 2xx', () => {
    expect(guardrailStatus({ input: failed }, 200)).toBe(GUARDRAIL_FAILED_STATUS);
    expect(guardrailStatus({ input: passed, output: failed }, 201)).toBe(246);
    expect(guardrailStatus({ input: failed })).toBe(246);
  });

  it('keeps the provider status when everything passed or the provider failed', () => {
    expect(guardrailStatus({ input: passed, output: passed }, 200)).toBeUndefined();
    expect(guardrailStatus({ input: failed }, 429)).toBeUndefined();
    expect(guardrailStatus({})).toBeUndefined();
  });
});

describe('hookResults', () => {
  it('lists input results as before_request_hooks and output ones as after_request_hooks', () => {
    expect(hookResults({ input: passed, output: failed })).toEqual({
      before_request_hooks: [
        {
          id: 'a',
          verdict: true,
          deny: false,
          async: false,
          execution_time: 1.235,
          checks: [{ id: 'pii', verdict: true, explanation: 'no PII found', execution_time: 0.5 }],
        },
      ],
      after_request_hooks: [
        expect.objectContaining({ id: 'a' }),
        expect.objectContaining({
          id: 'b',
          verdict: false,
          checks: [expect.objectContaining({ data: { categories: ['email'] } })],
        }),
      ],
    });
  });
});

describe('guardrailResponseBody', () => {
  it('is the error envelope plus hook_results when denied', () => {
    const body = guardrailResponseBody({ input: denied }, { id: 'chatcmpl-1' });
    expect(body).toEqual({
      error: {
        message: 'The request was denied by a guardrail; see hook_results for the checks that failed.',
        type: 'guardrail_error',
        code: 'guardrail_denied',
        param: null,
      },
      hook_results: {
        before_request_hooks: [expect.objectContaining({ id: 'c', deny: true })],
        after_request_hooks: [],
      },
    });
    expect(GUARDRAIL_DENIED_HEADERS).toEqual({ 'x-service-gateway-error': 'true' });
  });

  it('merges hook_results into a JSON-object provider body on a soft failure', () => {
    const provider = { id: 'chatcmpl-1', choices: [], hook_results: 'theirs' };
    const body = guardrailResponseBody({ input: failed, output: passed }, provider);
    expect(body).toEqual({
      id: 'chatcmpl-1',
      choices: [],
      hook_results: {
        before_request_hooks: [expect.objectContaining({ id: 'a' }), expect.objectContaining({ id: 'b' })],
        after_request_hooks: [expect.objectContaining({ id: 'a' })],
      },
    });
    expect(provider.hook_results).toBe('theirs');
  });

  it('leaves the body alone when everything passed or it is not a JSON object', () => {
    expect(guardrailResponseBody({ input: passed }, { id: 'x' })).toBeUndefined();
    expect(guardrailResponseBody({ input: failed }, [1, 2])).toBeUndefined();
    expect(guardrailResponseBody({ input: failed }, 'data: {}\n\n')).toBeUndefined();
    expect(guardrailResponseBody({ input: failed })).toBeUndefined();
  });
});
