// Guardrail definitions: built-in checks follow the config schema's catalogue, third-party checks
// need a policyId and default their timeout to 10 s, and async guardrails cannot deny.
import { DEFAULT_WEBHOOK_TIMEOUT_MS } from '@aigw/config-schema';
import { describe, expect, it } from 'vitest';
import { actionsSchema, checksSchema, definitionProblem } from './guardrails.checks.js';

function firstIssue(value: unknown) {
  const result = checksSchema.safeParse(value);
  expect(result.success).toBe(false);
  return result.error?.issues[0];
}

describe('guardrail checks', () => {
  it('fills the catalogue defaults of built-in checks', () => {
    expect(
      checksSchema.parse([
        { id: 'contains', parameters: { words: ['secret'] } },
        { id: 'pii' },
        { id: 'webhook', parameters: { url: 'https://hooks.example.com/check' } },
      ]),
    ).toEqual([
      { id: 'contains', parameters: { words: ['secret'], operator: 'any' } },
      { id: 'pii', parameters: { categories: ['email', 'phone', 'credit_card', 'iban', 'ip_address'] } },
      {
        id: 'webhook',
        parameters: {
          url: 'https://hooks.example.com/check',
          headers: {},
          timeout: DEFAULT_WEBHOOK_TIMEOUT_MS,
        },
      },
    ]);
  });

  it('names the parameter the catalogue refuses', () => {
    expect(
      firstIssue([{ id: 'valid_json' }, { id: 'regex_match', parameters: { pattern: '(a)\\1' } }]),
    ).toMatchObject({
      path: [1, 'parameters', 'pattern'],
      message: expect.stringContaining('backtracking engine'),
    });
    expect(firstIssue([{ id: 'word_count', parameters: { min: 5, max: 1 } }])?.path).toEqual([
      0,
      'parameters',
      'min',
    ]);
  });

  it('refuses unknown check ids, listing the known ones', () => {
    const issue = firstIssue([{ id: 'toxicity' }]);
    expect(issue?.path).toEqual([0, 'id']);
    expect(issue?.message).toContain('"regex_match"');
    expect(issue?.message).toContain('"partner.<name>"');
  });

  it('third-party checks: policyId required, timeout defaults to 10000 ms, webhook rules apply', () => {
    expect(
      checksSchema.parse([
        { id: 'partner.acme', parameters: { url: 'https://acme.example.com/v1/scan', policyId: 'pol_1' } },
      ]),
    ).toEqual([
      {
        id: 'partner.acme',
        parameters: {
          url: 'https://acme.example.com/v1/scan',
          headers: {},
          timeout: 10_000,
          policyId: 'pol_1',
        },
      },
    ]);
    expect(
      firstIssue([{ id: 'partner.acme', parameters: { url: 'https://acme.example.com' } }])?.path,
    ).toEqual([0, 'parameters', 'policyId']);
    expect(
      firstIssue([{ id: 'partner.acme', parameters: { url: 'ftp://acme.example.com', policyId: 'p' } }])
        ?.path,
    ).toEqual([0, 'parameters', 'url']);
    expect(
      firstIssue([
        { id: 'partner.acme', parameters: { url: 'https://a.example.com', policyId: 'p', timeout: 0 } },
      ])?.path,
    ).toEqual([0, 'parameters', 'timeout']);
    expect(firstIssue([{ id: 'partner.', parameters: {} }])?.path).toEqual([0, 'id']);
    // The webhook check's own rule: no parameter it does not know.
    expect(
      firstIssue([
        { id: 'partner.acme', parameters: { url: 'https://a.example.com', policyId: 'p', region: 'eu' } },
      ])?.path,
    ).toEqual([0, 'parameters']);
  });

  it('holds 1 to 20 checks', () => {
    expect(checksSchema.safeParse([]).success).toBe(false);
    expect(checksSchema.safeParse(Array.from({ length: 21 }, () => ({ id: 'valid_json' }))).success).toBe(
      false,
    );
    expect(checksSchema.safeParse(Array.from({ length: 20 }, () => ({ id: 'valid_json' }))).success).toBe(
      true,
    );
  });
});

describe('guardrail actions', () => {
  it('default to passing on, with feedback weights defaulting to 1', () => {
    expect(actionsSchema.parse({})).toEqual({ deny: false });
    expect(actionsSchema.parse({ deny: true, on_fail: { feedback: { value: -5 } } })).toEqual({
      deny: true,
      on_fail: { feedback: { value: -5, weight: 1 } },
    });
    expect(actionsSchema.safeParse({ on_success: { feedback: { value: 11 } } }).success).toBe(false);
  });

  it('an async guardrail cannot deny', () => {
    const checks = checksSchema.parse([{ id: 'valid_json' }]);
    expect(definitionProblem({ checks, actions: { deny: true }, async: true })?.param).toBe(
      'body.actions.deny',
    );
    expect(definitionProblem({ checks, actions: { deny: false }, async: true })).toBeNull();
  });
});
