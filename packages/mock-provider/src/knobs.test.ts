import { describe, expect, it } from 'vitest';
import { FailCounter } from './fail-counter.js';
import {
  applyPatch,
  DEFAULT_KNOBS,
  effectiveKnobs,
  KnobError,
  knobsFromOptions,
  scenarioOf,
} from './knobs.js';

describe('knob values', () => {
  it('takes knobs from options and ignores the other option fields', () => {
    const knobs = knobsFromOptions({ latencyMs: 5, chunks: 3 });
    expect(knobs).toEqual({ ...DEFAULT_KNOBS, latencyMs: 5, chunks: 3 });
  });

  it('lets null reset a knob and rejects unknown names and bad values', () => {
    const knobs = applyPatch(DEFAULT_KNOBS, { status: 503, failStatus: 429 });
    expect(applyPatch(knobs, { status: null })).toMatchObject({ status: undefined, failStatus: 429 });
    expect(() => applyPatch(DEFAULT_KNOBS, { latency: 1 })).toThrow(KnobError);
    expect(() => applyPatch(DEFAULT_KNOBS, { latencyMs: -1 })).toThrow(/latencyMs/);
    expect(() => applyPatch(DEFAULT_KNOBS, { chunks: 1.5 })).toThrow(/integer/);
    expect(() => applyPatch(DEFAULT_KNOBS, { status: 42 })).toThrow(/HTTP status/);
    expect(applyPatch(DEFAULT_KNOBS, { retryAfter: 1.5 }).retryAfter).toBe(1.5);
  });

  it('lets x-mock-* headers override server-wide knobs', () => {
    const server = applyPatch(DEFAULT_KNOBS, { latencyMs: 100, chunks: 2 });
    const knobs = effectiveKnobs(server, {
      'x-mock-latency-ms': '0',
      'x-mock-fail-first': '2',
      'x-mock-fail-status': '429',
    });
    expect(knobs).toMatchObject({ latencyMs: 0, chunks: 2, failFirst: 2, failStatus: 429 });
    expect(() => effectiveKnobs(server, { 'x-mock-status': 'abc' })).toThrow(KnobError);
  });

  it('scopes scenarios by header, with a default', () => {
    expect(scenarioOf({})).toBe('default');
    expect(scenarioOf({ 'x-mock-scenario': 'a' })).toBe('a');
  });
});

describe('FailCounter', () => {
  it('fails the first n calls per scenario and can be reset', () => {
    const counter = new FailCounter();
    expect([1, 2, 3].map(() => counter.shouldFail('a', 2))).toEqual([true, true, false]);
    expect(counter.shouldFail('b', 2)).toBe(true);
    expect(counter.shouldFail('a', 0)).toBe(false);
    counter.reset('a');
    expect(counter.shouldFail('a', 2)).toBe(true);
    expect(counter.shouldFail('b', 2)).toBe(true);
    expect(counter.shouldFail('b', 2)).toBe(false);
    counter.reset();
    expect(counter.shouldFail('b', 2)).toBe(true);
  });
});
