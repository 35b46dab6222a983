import { describe, expect, test } from 'vitest';
import { fromLocalInput, readState, timeQuery, toLocalInput, writeState } from './analytics-query.js';

describe('the analytics page state in the URL', () => {
  test('an empty query is the last 24 hours grouped by AI service, first page', () => {
    expect(readState(new URLSearchParams())).toEqual({
      range: { kind: 'preset', preset: '24h' },
      groupBy: 'ai_service',
      page: 0,
    });
    expect(writeState(readState(new URLSearchParams())).toString()).toBe('');
  });

  test('presets, group-by and page survive a round trip', () => {
    const query = 'range=7d&group=model&page=2';
    const state = readState(new URLSearchParams(query));
    expect(state).toEqual({ range: { kind: 'preset', preset: '7d' }, groupBy: 'model', page: 2 });
    expect(writeState(state).toString()).toBe(query);
  });

  test('a custom range keeps its instants', () => {
    const query = 'range=custom&from=2026-11-01T00%3A00%3A00.000Z&to=2026-11-02T00%3A00%3A00.000Z';
    const state = readState(new URLSearchParams(query));
    expect(state.range).toEqual({
      kind: 'custom',
      from: '2026-11-01T00:00:00.000Z',
      to: '2026-11-02T00:00:00.000Z',
    });
    expect(writeState(state).toString()).toBe(query);
  });

  test('unknown values fall back to the defaults (a custom range needs both ends)', () => {
    expect(readState(new URLSearchParams('range=2y&group=colour&page=-3'))).toEqual({
      range: { kind: 'preset', preset: '24h' },
      groupBy: 'ai_service',
      page: 0,
    });
    expect(readState(new URLSearchParams('range=custom&from=2026-11-01T00:00:00Z')).range).toEqual({
      kind: 'preset',
      preset: '24h',
    });
    expect(readState(new URLSearchParams('page=1.5')).page).toBe(0);
  });
});

describe('the API time filter', () => {
  const now = Date.parse('2026-11-27T12:00:00.000Z');
  test('a preset ends now and starts its length before', () => {
    expect(timeQuery({ kind: 'preset', preset: '1h' }, now)).toEqual({
      start_time: '2026-11-27T11:00:00.000Z',
      end_time: '2026-11-27T12:00:00.000Z',
    });
    expect(timeQuery({ kind: 'preset', preset: '30d' }, now).start_time).toBe('2026-10-28T12:00:00.000Z');
  });

  test('a custom range is passed as chosen (the API checks it)', () => {
    expect(timeQuery({ kind: 'custom', from: 'b', to: 'a' }, now)).toEqual({
      start_time: 'b',
      end_time: 'a',
    });
  });

  test('datetime-local values are local times, converted both ways', () => {
    const iso = fromLocalInput('2026-11-27T09:30');
    expect(iso).toBe(new Date(2026, 10, 27, 9, 30).toISOString());
    expect(toLocalInput(iso ?? '')).toBe('2026-11-27T09:30');
    expect(fromLocalInput('')).toBeUndefined();
    expect(fromLocalInput('not a date')).toBeUndefined();
    expect(toLocalInput('nope')).toBe('');
  });
});
