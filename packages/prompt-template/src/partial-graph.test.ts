// Save-time checks of partial includes: unknown names and loops (self, two, three partials) refused.
import { describe, expect, it } from 'vitest';
import { checkPartials } from './partial-graph.js';
import { TemplateError } from './template-error.js';

function error(fn: () => unknown): TemplateError {
  try {
    fn();
  } catch (err) {
    if (err instanceof TemplateError) return err;
    throw err;
  }
  throw new Error('did not throw');
}

describe('checkPartials', () => {
  const store: Record<string, string> = {
    leaf: 'leaf {{x}}',
    mid: '{{> leaf}} and {{> leaf}}',
    a: '{{> b}}',
    b: '{{> c}}',
    c: '{{> a}}',
  };
  const lookup = (n: string) => store[n];

  it('returns every partial reached once, deepest first', () => {
    expect(checkPartials(['{{> mid}} {{> leaf}}'], lookup)).toEqual(['leaf', 'mid']);
    expect(checkPartials(['no partials'], lookup)).toEqual([]);
  });

  it('refuses a partial that includes itself', () => {
    const err = error(() => checkPartials(['x {{> self}}'], lookup, 'self'));
    expect([err.code, err.names]).toEqual(['partial_cycle', ['self', 'self']]);
  });

  it('refuses a partial whose includes come back to it, whatever the store held for it', () => {
    // Saving "leaf" so that it includes "mid", which includes "leaf": a loop through the new text.
    const err = error(() => checkPartials(['{{> mid}}'], lookup, 'leaf'));
    expect([err.code, err.names]).toEqual(['partial_cycle', ['leaf', 'mid', 'leaf']]);
  });

  it('refuses a prompt reaching a loop of three partials', () => {
    const err = error(() => checkPartials(['{{> a}}'], lookup));
    expect(err.code).toBe('partial_cycle');
    expect(err.message).toContain('a -> b -> c -> a');
  });

  it('refuses an unknown partial by name', () => {
    const err = error(() => checkPartials(['{{> nope}}'], lookup));
    expect([err.code, err.names]).toEqual(['unknown_partial', ['nope']]);
  });
});
