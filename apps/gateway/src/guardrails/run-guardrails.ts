// Runs a phase's guardrails: synchronous ones decide the request (pass, 246, 446); async ones run
// after, off the request path, and only report.
import type { Guardrail, GuardrailCheck } from '@aigw/config-schema';
import { type CheckEnv, type CheckVerdict, runCheck } from './checks.js';
import { createRegexRunner, DEFAULT_REGEX_BUDGET_MS } from './regex-budget.js';
import { textOf } from './text-of.js';
import type {
  CheckResult,
  GuardrailContext,
  GuardrailOutcome,
  GuardrailResult,
  WebhookCaller,
} from './types.js';

export interface GuardrailDeps {
  readonly webhook: WebhookCaller;
  /** Milliseconds clock for reported durations (default `performance.now`). */
  readonly now?: () => number;
  /** Time all regex searches of one run may take (synchronous and async guardrails count apart). */
  readonly regexBudgetMs?: number;
}

/** What a run answers when `GUARDRAILS_ENABLED=OFF`, or when there is nothing to run. */
export const GUARDRAILS_PASSED: GuardrailOutcome = Object.freeze({
  verdict: true,
  denied: false,
  results: Object.freeze([]),
});

/**
 * Runs `guardrails` for `ctx.phase`. Synchronous guardrails, and every check inside one, run
 * concurrently; the outcome waits for all of them. Async guardrails start once those are done, on
 * the next turn of the event loop (after the caller has acted on the outcome), and resolve
 * `asyncResults`. A check that throws or whose webhook fails counts as failed (fail closed).
 * Saved-guardrail refs must be resolved by the caller; one left in the list fails without denying.
 */
export async function runGuardrails(
  guardrails: readonly Guardrail[],
  ctx: GuardrailContext,
  deps: GuardrailDeps,
): Promise<GuardrailOutcome> {
  if (guardrails.length === 0) return GUARDRAILS_PASSED;
  const now = deps.now ?? (() => performance.now());
  const labelled = guardrails.map((guardrail, index) => ({ guardrail, id: labelOf(guardrail, ctx, index) }));
  const sync = labelled.filter(({ guardrail }) => !(guardrail.type === 'inline' && guardrail.async));
  const later = labelled.filter(({ guardrail }) => guardrail.type === 'inline' && guardrail.async);

  const syncEnv = checkEnv(ctx, deps);
  const results = await Promise.all(sync.map(({ guardrail, id }) => runOne(guardrail, id, syncEnv, now)));
  const failed = results.filter((r) => !r.verdict);
  const outcome = { verdict: failed.length === 0, denied: failed.some((r) => r.deny), results };
  if (later.length === 0) return outcome;
  const asyncResults = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
    const env = checkEnv(ctx, deps);
    return Promise.all(later.map(({ guardrail, id }) => runOne(guardrail, id, env, now)));
  });
  return { ...outcome, asyncResults };
}

const disabledRunners = new WeakSet<object>();

/**
 * Whether `runner` is createGuardrailRunner's runner for `GUARDRAILS_ENABLED=OFF`: it always passes,
 * so a caller need not buffer an answer for it (a stream with output guardrails keeps streaming).
 */
export function isGuardrailRunnerDisabled(runner: object): boolean {
  return disabledRunners.has(runner);
}

/** `runGuardrails`, or the passing outcome when the `GUARDRAILS_ENABLED` flag is off. */
export function createGuardrailRunner(
  settings: { readonly GUARDRAILS_ENABLED: boolean; readonly GUARDRAILS_REGEX_BUDGET_MS?: number },
  deps: GuardrailDeps,
): (guardrails: readonly Guardrail[], ctx: GuardrailContext) => Promise<GuardrailOutcome> {
  if (!settings.GUARDRAILS_ENABLED) {
    const off = async () => GUARDRAILS_PASSED;
    disabledRunners.add(off);
    return off;
  }
  const withBudget = {
    ...deps,
    regexBudgetMs: deps.regexBudgetMs ?? settings.GUARDRAILS_REGEX_BUDGET_MS ?? DEFAULT_REGEX_BUDGET_MS,
  };
  return (guardrails, ctx) => runGuardrails(guardrails, ctx, withBudget);
}

function labelOf(guardrail: Guardrail, ctx: GuardrailContext, index: number): string {
  return guardrail.id ?? `${ctx.phase}_guardrails[${index}]`;
}

function checkEnv(ctx: GuardrailContext, deps: GuardrailDeps): CheckEnv {
  let text: string | undefined;
  return {
    ctx,
    text: () => {
      text ??= textOf(ctx);
      return text;
    },
    regex: createRegexRunner(deps.regexBudgetMs),
    webhook: deps.webhook,
  };
}

async function runOne(
  guardrail: Guardrail,
  id: string,
  env: CheckEnv,
  now: () => number,
): Promise<GuardrailResult> {
  if (guardrail.type === 'ref') {
    const check: CheckResult = {
      id: 'ref',
      verdict: false,
      explanation: 'the saved guardrail was not resolved',
      durationMs: 0,
      error: `guardrail ${guardrail.id} was not resolved before the run`,
    };
    return { id, verdict: false, deny: false, async: false, checks: [check], durationMs: 0 };
  }
  const started = now();
  const pending = guardrail.checks.map((check) => timed(check, env, now));
  // Synchronous checks finish inside map(): stop the clock before other guardrails' checks run.
  const settled = pending.every((c) => !(c instanceof Promise)) ? (pending as CheckResult[]) : undefined;
  const durationMs = settled ? now() - started : undefined;
  const checks = settled ?? (await Promise.all(pending));
  const verdict = checks.every((c) => c.verdict);
  const result: GuardrailResult = {
    id,
    verdict,
    deny: guardrail.deny && !guardrail.async,
    async: guardrail.async,
    checks,
    durationMs: durationMs ?? now() - started,
  };
  // A guardrail without actions (most) costs one property read: no second object.
  const feedback = (verdict ? guardrail.on_success : guardrail.on_fail)?.feedback;
  return feedback ? { ...result, feedback } : result;
}

function timed(check: GuardrailCheck, env: CheckEnv, now: () => number): CheckResult | Promise<CheckResult> {
  const started = now();
  const done = (verdict: CheckVerdict): CheckResult => ({
    id: check.id,
    ...verdict,
    durationMs: now() - started,
  });
  const failed = (err: unknown): CheckResult =>
    done({
      verdict: false,
      explanation: 'the check failed to run',
      error: err instanceof Error ? err.message : String(err),
    });
  try {
    const verdict = runCheck(check, env);
    return verdict instanceof Promise ? verdict.then(done, failed) : done(verdict);
  } catch (err) {
    return failed(err);
  }
}
