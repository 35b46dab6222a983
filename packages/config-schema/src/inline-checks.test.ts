import { describe, expect, it } from 'vitest';
import { inlineCheckLists } from './inline-checks.js';

describe('inlineCheckLists', () => {
  it('finds the checks of inline guardrails at the root and in nested targets, skipping saved ids', () => {
    const hook = { id: 'webhook', parameters: { url: 'https://h.example.com', headers: { a: 'b' } } };
    const config = {
      input_guardrails: ['saved-guard', { checks: [{ id: 'valid_json' }, hook] }],
      strategy: { mode: 'fallback' },
      targets: [
        { provider: '@a' },
        {
          strategy: { mode: 'loadbalance' },
          output_guardrails: [{ checks: [hook] }],
          targets: [{ provider: '@b', input_guardrails: [{ checks: [hook] }] }],
        },
      ],
    };
    const lists = inlineCheckLists(config);
    expect(lists.map((l) => l.path)).toEqual([
      'input_guardrails.1.checks',
      'targets.1.output_guardrails.0.checks',
      'targets.1.targets.0.input_guardrails.0.checks',
    ]);
    // The arrays themselves, so callers can rewrite checks in place.
    expect(lists[0]?.checks).toBe((config.input_guardrails[1] as { checks: unknown[] }).checks);
  });

  it('finds nothing in values that are not config objects', () => {
    expect(inlineCheckLists(null)).toEqual([]);
    expect(inlineCheckLists([{ input_guardrails: [{ checks: [] }] }])).toEqual([]);
    expect(inlineCheckLists({ input_guardrails: 'x', targets: 3 })).toEqual([]);
  });
});
