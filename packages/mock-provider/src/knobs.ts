// Knob defaults, validation, and the per-request `x-mock-*` header overrides.
import type { IncomingHttpHeaders } from 'node:http';
import type { KnobPatch, MockKnobs } from './types.js';

export const DEFAULT_KNOBS: Readonly<MockKnobs> = Object.freeze({
  latencyMs: 0,
  status: undefined,
  failFirst: 0,
  failStatus: 500,
  retryAfter: undefined,
  chunkDelayMs: 0,
  stallAfterChunks: undefined,
  cutAfterChunks: undefined,
  chunks: undefined,
  omitUsage: 0,
});

/** Header name for each knob, in the order the README documents them. */
export const KNOB_HEADERS: Readonly<Record<keyof MockKnobs, string>> = Object.freeze({
  latencyMs: 'x-mock-latency-ms',
  status: 'x-mock-status',
  failFirst: 'x-mock-fail-first',
  failStatus: 'x-mock-fail-status',
  retryAfter: 'x-mock-retry-after',
  chunkDelayMs: 'x-mock-chunk-delay-ms',
  stallAfterChunks: 'x-mock-stall-after-chunks',
  cutAfterChunks: 'x-mock-cut-after-chunks',
  chunks: 'x-mock-chunks',
  omitUsage: 'x-mock-omit-usage',
});

/** Header that scopes fail-first counters, so parallel tests do not share them. */
export const SCENARIO_HEADER = 'x-mock-scenario';

const KNOB_NAMES = Object.keys(DEFAULT_KNOBS) as Array<keyof MockKnobs>;

/** Thrown for a knob value that makes no sense; the server answers 400 naming the knob. */
export class KnobError extends Error {
  override readonly name = 'KnobError';
}

function check(name: keyof MockKnobs, value: unknown): number {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) {
    throw new KnobError(`invalid value for ${name}: ${JSON.stringify(value)} (expected a number >= 0)`);
  }
  // retryAfter may be fractional seconds; every other knob counts whole ms, chunks or calls.
  if (name !== 'retryAfter' && !Number.isInteger(n)) {
    throw new KnobError(`invalid value for ${name}: ${JSON.stringify(value)} (expected an integer)`);
  }
  if ((name === 'status' || name === 'failStatus') && (n < 100 || n > 599)) {
    throw new KnobError(`invalid value for ${name}: ${n} (expected an HTTP status 100..599)`);
  }
  return n;
}

/** Apply a patch on top of `base`; unknown keys are rejected so typos do not pass silently. */
export function applyPatch(base: Readonly<MockKnobs>, patch: Record<string, unknown>): MockKnobs {
  const next: MockKnobs = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (!KNOB_NAMES.includes(key as keyof MockKnobs)) throw new KnobError(`unknown knob: ${key}`);
    const name = key as keyof MockKnobs;
    if (value === undefined) continue;
    const resolved = value === null ? DEFAULT_KNOBS[name] : check(name, value);
    (next as unknown as Record<string, number | undefined>)[name] = resolved;
  }
  return next;
}

/** Pick the knob fields out of an options object (which also carries host, port, ...). */
export function knobsFromOptions(options: KnobPatch): MockKnobs {
  const patch: Record<string, unknown> = {};
  for (const name of KNOB_NAMES) {
    if (options[name] !== undefined) patch[name] = options[name];
  }
  return applyPatch(DEFAULT_KNOBS, patch);
}

/** Server-wide knobs overridden by any `x-mock-*` request header. */
export function effectiveKnobs(server: Readonly<MockKnobs>, headers: IncomingHttpHeaders): MockKnobs {
  const patch: Record<string, unknown> = {};
  for (const name of KNOB_NAMES) {
    const raw = headers[KNOB_HEADERS[name]];
    if (raw !== undefined) patch[name] = Array.isArray(raw) ? raw[0] : raw;
  }
  return applyPatch(server, patch);
}

/** Scenario key of a request (`default` when the header is absent). */
export function scenarioOf(headers: IncomingHttpHeaders): string {
  const raw = headers[SCENARIO_HEADER];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return value && value.length > 0 ? value : 'default';
}
