// Walks a config tree for one request: single, fallback, loadbalance and conditional nodes down to a
// leaf, and retries per leaf. It only judges answers whose head has arrived and that nothing has
// been sent of: the caller sends the one it returns, so nothing is retried after the first byte.
import type { IncomingHttpHeaders } from 'node:http';
import {
  type ConditionContext,
  type ConfigNode,
  type NormalisedConfig,
  pickWeighted,
  selectConditionalTarget,
} from '@aigw/config-schema';
import { gatewayError } from '../errors.js';
import { isRetriedStatus, RETRY_BUDGET_MS, retryDelayMs } from './retry-policy.js';

/** What one call of a leaf produced, before anything of it reached the client. */
export interface StrategyOutcome {
  /**
   * The status as the strategy judges it: the provider's, the gateway error's when no answer came
   * (502 unreachable, 504 idle, 408 timeout), or a guardrail's (446, 246).
   */
  readonly status: number;
  /** No answer came (connect error, timeout): a fallback moves on whatever its status list says. */
  readonly failed: boolean;
  /** Calling the same leaf again cannot change it (a cache hit, an input guardrail's denial). */
  readonly final?: boolean;
  /** The answer's headers (`retry-after`). */
  readonly headers?: IncomingHttpHeaders;
  /** Releases what the outcome holds (an unread upstream body) when it is passed over. */
  discard(): void;
}

export interface StrategyRun<O extends StrategyOutcome> {
  /** The answer to send; discarded already when the signal aborted. */
  readonly outcome: O;
  /** The leaf that produced it. */
  readonly leaf: ConfigNode;
  /** Retries made on that leaf (0 when its first call answered). */
  readonly retries: number;
}

export interface StrategyDeps<O extends StrategyOutcome> {
  /** Metadata and request body, for conditional nodes. */
  readonly context: ConditionContext;
  /** One call of a leaf; `retry` is 0 for the first call of that leaf, then 1, 2, ... */
  call(leaf: ConfigNode, retry: number): Promise<O>;
  /** Aborted when the client went away: no further call is started. */
  readonly signal?: AbortSignal;
  readonly random?: () => number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Milliseconds clock (default `Date.now`); tests pass one that `sleep` advances. */
  readonly now?: () => number;
  /**
   * Time from the first call within which a retry may start, calls and waits counted (default
   * RETRY_BUDGET_MS): a retry whose wait would end past it is not made.
   */
  readonly budgetMs?: number;
}

/** Whether a fallback moves on from this outcome. */
export function movesOn(outcome: StrategyOutcome, onStatusCodes: readonly number[] | undefined): boolean {
  if (outcome.failed) return true;
  if (onStatusCodes) return onStatusCodes.includes(outcome.status);
  return outcome.status < 200 || outcome.status > 299;
}

/** Runs `config` to the answer the client gets. Throws `no_matching_target` for a conditional dead end. */
export async function runStrategy<O extends StrategyOutcome>(
  config: NormalisedConfig,
  deps: StrategyDeps<O>,
): Promise<StrategyRun<O>> {
  const random = deps.random ?? Math.random;
  const sleep = deps.sleep ?? abortableSleep;
  const budget = deps.budgetMs ?? RETRY_BUDGET_MS;
  const now = deps.now ?? Date.now;
  const aborted = () => deps.signal?.aborted === true;
  // Slow calls count as much as waits: ten retries of a target that answers after 30 s would
  // otherwise hold the request for five minutes while the waits stay under the budget.
  const started = now();

  const runLeaf = async (leaf: ConfigNode): Promise<StrategyRun<O>> => {
    const retry = leaf.settings.retry;
    let outcome = await deps.call(leaf, 0);
    let retries = 0;
    while (
      retry &&
      retries < retry.attempts &&
      !outcome.final &&
      isRetriedStatus(outcome.status, retry) &&
      !aborted()
    ) {
      const wait = retryDelayMs(retries + 1, retry, outcome.headers, random);
      if (wait === undefined || now() - started + wait > budget) break;
      outcome.discard();
      await sleep(wait, deps.signal);
      if (aborted()) break;
      retries += 1;
      outcome = await deps.call(leaf, retries);
    }
    return { outcome, leaf, retries };
  };

  const runNode = async (node: ConfigNode): Promise<StrategyRun<O>> => {
    const strategy = node.strategy;
    if (!strategy) return runLeaf(node);
    switch (strategy.mode) {
      case 'single':
        return runNode(node.targets[0] as ConfigNode);
      case 'loadbalance':
        return runNode(pickWeighted(node, random) ?? (node.targets[0] as ConfigNode));
      case 'conditional': {
        const target = selectConditionalTarget(config, node, deps.context);
        if (!target) {
          throw gatewayError(
            'no_matching_target',
            `${node.path}: no condition of the conditional strategy holds for this request, and it has no default`,
            { param: `${node.path}.strategy` },
          );
        }
        return runNode(target);
      }
      case 'fallback': {
        const last = node.targets.length - 1;
        for (let i = 0; ; i++) {
          const run = await runNode(node.targets[i] as ConfigNode);
          if (i === last || aborted() || !movesOn(run.outcome, strategy.on_status_codes)) return run;
          run.outcome.discard();
        }
      }
    }
  };

  return runNode(config);
}

/** Resolves after `ms`, or at once when the signal aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) {
      resolve();
      return;
    }
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
