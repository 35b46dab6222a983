// One call of a config leaf as the strategy sees it. Once per leaf: its target (provider, custom
// host, override_params), its cache lookup and its input guardrails; then per call: the upstream
// exchange up to the answer's head, or the whole answer when guardrails must read it.
import type { ConfigNode, Guardrail } from '@aigw/config-schema';
import { AppError } from '@aigw/runtime';
import type { ManagedRef } from '../access/index.js';
import type { CachedResponse, CacheLookup, ResponseCache } from '../cache/index.js';
import { jsonOrUndefined } from '../formats/index.js';
import {
  GUARDRAIL_DENIED_STATUS,
  type GuardrailContext,
  type GuardrailOutcome,
  guardrailStatus,
  isGuardrailRunnerDisabled,
} from '../guardrails/index.js';
import type { CustomHostCache } from '../upstream/custom-host-cache.js';
import { openExchange, readAnswer, type UpstreamExchange } from '../upstream/upstream-exchange.js';
import type { ConfigRequest } from './config-request.js';
import { leafTarget } from './leaf-target.js';
import { plainAnswer, prepareUpstream, type UpstreamPlan } from './leaf-upstream.js';
import type { StrategyOutcome } from './strategy.js';
import { isEventStream, streamText } from './stream-text.js';
import type { TargetAdmissions } from './target-admissions.js';
import { translatedExchange } from './translated-exchange.js';

export interface AttemptRecord {
  readonly targetPath: string;
  readonly provider: string;
  readonly customHost: string;
  /** The managed provider or virtual key of the target (control-plane mode). */
  readonly ref?: ManagedRef | undefined;
  readonly model: string;
  readonly retryIndex: number;
  readonly startedAt: number;
  statusCode: number;
  endedAt: number;
  error?: { code: string; message: string; type: string };
  /** The target could not be prepared: nothing was sent upstream. */
  readonly unsent?: true;
}

export interface GuardrailRun {
  readonly stage: 'input' | 'output';
  readonly outcome: GuardrailOutcome;
}

export type GuardrailRunner = (
  list: readonly Guardrail[],
  ctx: GuardrailContext,
) => Promise<GuardrailOutcome>;

export interface LeafCallDeps {
  readonly customHosts: CustomHostCache;
  readonly cache: ResponseCache;
  readonly guardrails: GuardrailRunner;
  /** Idle limit of upstream sockets. */
  readonly idleTimeoutMs: number;
  /** Largest answer read whole for guardrails. */
  readonly maxAnswerBytes: number;
}

/** A leaf ready to be called. */
export interface PreparedLeaf extends UpstreamPlan {
  readonly node: ConfigNode;
  readonly provider: string;
  readonly customHost: string;
  readonly ref: ManagedRef | undefined;
  readonly cache: CacheLookup | undefined;
  readonly input: GuardrailOutcome | undefined;
}

interface Base extends StrategyOutcome {
  /** Undefined when the leaf could not be prepared (its error says why). */
  readonly leaf: PreparedLeaf | undefined;
}

export type LeafOutcome =
  /** An answer whose head is in: relayed as it streams. */
  | (Base & { readonly kind: 'response'; readonly exchange: UpstreamExchange })
  /** An answer read whole for guardrails; `status` is 246/446 when they failed. */
  | (Base & {
      readonly kind: 'held';
      readonly exchange: UpstreamExchange;
      readonly providerStatus: number;
      readonly body: Buffer;
      readonly responseJson: unknown;
      readonly output: GuardrailOutcome | undefined;
    })
  /** A stored answer; `output` is its output guardrails' run (they read hits too), `status` 246/446 when they failed. */
  | (Base & {
      readonly kind: 'hit';
      readonly hit: CachedResponse;
      readonly output: GuardrailOutcome | undefined;
    })
  /** An input guardrail denied the request (446): the provider was not called. */
  | (Base & { readonly kind: 'denied' })
  | (Base & { readonly kind: 'error'; readonly error: AppError });

const noop = () => {};
const ok = (status: number) => status >= 200 && status <= 299;

export class LeafCaller {
  readonly attempts: AttemptRecord[] = [];
  readonly guardrailRuns: GuardrailRun[] = [];
  private readonly leaves = new Map<string, Promise<PreparedLeaf>>();
  private readonly inputRuns = new Map<readonly Guardrail[], Map<unknown, Promise<GuardrailOutcome>>>();
  /** GUARDRAILS_ENABLED=OFF. */
  private readonly guardrailsOff: boolean;

  constructor(
    private readonly deps: LeafCallDeps,
    private readonly request: ConfigRequest,
  ) {
    this.guardrailsOff = isGuardrailRunnerDisabled(deps.guardrails);
  }

  /** The strategy's `call`: never rejects on a gateway error, which becomes a failed outcome. */
  readonly call = async (node: ConfigNode, retry: number): Promise<LeafOutcome> => {
    let leaf: PreparedLeaf | undefined;
    try {
      leaf = await this.prepared(node);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      // Recorded although nothing was sent: a fallback that passed over a misconfigured target
      // (unknown provider, blocked custom host) says why in the request event.
      this.attempts.push({
        targetPath: node.path,
        provider: node.settings.provider ?? '',
        customHost: '',
        model: '',
        retryIndex: retry,
        startedAt: Date.now(),
        statusCode: 0,
        endedAt: Date.now(),
        error: { code: err.code ?? 'error', message: err.message, type: err.type },
        unsent: true,
      });
      return {
        kind: 'error',
        leaf: undefined,
        error: err,
        status: err.status,
        failed: true,
        final: true,
        discard: noop,
      };
    }
    if (leaf.input?.denied) {
      return {
        kind: 'denied',
        leaf,
        status: GUARDRAIL_DENIED_STATUS,
        failed: false,
        final: true,
        discard: noop,
      };
    }
    const hit = leaf.cache?.hit;
    if (hit) return this.served(leaf, hit);
    return this.exchange(leaf, retry);
  };

  /**
   * A cache hit runs the leaf's output guardrails like a fresh answer: they may read the request's
   * metadata (required keys, a webhook), which is not part of the cache key, so an answer stored
   * for one request has not passed them for another.
   */
  private async served(leaf: PreparedLeaf, hit: CachedResponse): Promise<LeafOutcome> {
    const stream = hit.streamed || isEventStream(hit.headers['content-type']);
    const { output } = await this.runOutput(leaf, hit.body, stream, false);
    const status = guardrailStatus({ input: leaf.input, output }, hit.status) ?? hit.status;
    return { kind: 'hit', leaf, hit, output, status, failed: false, final: true, discard: noop };
  }

  private prepared(node: ConfigNode): Promise<PreparedLeaf> {
    let leaf = this.leaves.get(node.path);
    if (!leaf) {
      leaf = this.prepare(node);
      this.leaves.set(node.path, leaf);
    }
    return leaf;
  }

  private async prepare(node: ConfigNode): Promise<PreparedLeaf> {
    const { request, deps } = this;
    const s = node.settings;
    const target = leafTarget(s, request.headerProvider);
    const plan = await prepareUpstream(request, target, s, deps.customHosts);
    const provider = target.provider.id;
    const input =
      s.input_guardrails?.length && !this.guardrailsOff
        ? await this.runInput(s.input_guardrails, plan.json, provider)
        : undefined;
    // A denied request is answered by the guardrail: the cache takes no part (DISABLED), so a
    // stored answer never counts as a hit for it.
    const cache =
      s.cache && !input?.denied
        ? await deps.cache.lookup({
            settings: s.cache,
            method: request.method,
            path: request.path,
            provider,
            url: plan.url,
            body: plan.json ?? plan.body,
            namespace: request.cacheHeaders.namespace,
            forceRefresh: request.cacheHeaders.forceRefresh,
            scope: request.cacheScope,
          })
        : undefined;
    // A failed input guardrail without deny adds its results to the answer (246): read it whole.
    // With guardrails off nothing reads the answer: it streams as without output guardrails.
    const readsAnswer = (plan.readsAnswer && !this.guardrailsOff) || input?.verdict === false;
    if (readsAnswer) plainAnswer(plan.headers, target.forwardHeaders);
    // Spelled out rather than `{ ...plan, ... }`: that spread cost about 4 µs a config request
    // (V8's slow object-clone path; performance-journal.md, twelfth session).
    return {
      url: plan.url,
      headers: plan.headers,
      body: plan.body,
      json: plan.json,
      model: plan.model,
      servedModel: plan.servedModel,
      lookup: plan.lookup,
      customHostUrl: plan.customHostUrl,
      timeoutMs: plan.timeoutMs,
      readsAnswer,
      translation: plan.translation,
      node,
      provider,
      customHost: plan.customHostUrl?.origin ?? '',
      ref: target.ref,
      cache,
      input,
    };
  }

  /** Leaves sharing a guardrail list and a body share one run (an inherited list is one object). */
  private runInput(list: readonly Guardrail[], json: unknown, provider: string): Promise<GuardrailOutcome> {
    let byBody = this.inputRuns.get(list);
    if (!byBody) {
      byBody = new Map();
      this.inputRuns.set(list, byBody);
    }
    let run = byBody.get(json);
    if (!run) {
      run = this.deps.guardrails(list, {
        phase: 'input',
        requestJson: json,
        metadata: this.request.metadata,
        provider,
      });
      byBody.set(json, run);
      void run.then((outcome) => this.guardrailRuns.push({ stage: 'input', outcome }));
    }
    return run;
  }

  private async exchange(leaf: PreparedLeaf, retry: number): Promise<LeafOutcome> {
    const targets = this.request.targetLimits;
    let admission: Awaited<ReturnType<TargetAdmissions['admit']>>;
    try {
      admission = await targets?.admit(leaf);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return this.refused(leaf, retry, err);
    }
    const attempt = attemptOf(leaf, retry, Date.now());
    this.attempts.push(attempt);
    if (admission) targets?.record(attempt, admission);
    const called = await openExchange({
      method: this.request.method,
      url: leaf.url,
      headers: leaf.headers,
      body: leaf.body,
      lookup: leaf.lookup,
      timeoutMs: leaf.timeoutMs,
      idleTimeoutMs: this.deps.idleTimeoutMs,
      signal: this.request.signal,
    });
    // A translated target's answer is read in the client's shape from here on (docs/unified-api.md).
    const exchange = leaf.translation
      ? translatedExchange(called, leaf.translation, this.deps.maxAnswerBytes)
      : called;
    attempt.endedAt = Date.now();
    const response = exchange.response;
    if (!response) return this.failed(leaf, attempt, exchange.error as AppError);
    const status = response.statusCode;
    attempt.statusCode = status;
    const discard = () => exchange.abort();
    if (!leaf.readsAnswer || !ok(status)) {
      return { kind: 'response', leaf, exchange, status, failed: false, headers: response.headers, discard };
    }
    let body: Buffer;
    try {
      body = await readAnswer(exchange, this.deps.maxAnswerBytes);
    } catch (err) {
      return this.failed(leaf, attempt, err as AppError);
    }
    attempt.endedAt = Date.now();
    const { output, responseJson } = await this.runOutput(
      leaf,
      body,
      isEventStream(response.headers['content-type']),
      true,
    );
    return {
      kind: 'held',
      leaf,
      exchange,
      providerStatus: status,
      body,
      responseJson,
      output,
      status: guardrailStatus({ input: leaf.input, output }, status) ?? status,
      failed: false,
      headers: response.headers,
      discard,
    };
  }

  /** The leaf's output guardrails on a whole answer (none: `output` undefined). */
  private async runOutput(
    leaf: PreparedLeaf,
    body: Buffer,
    stream: boolean,
    /** The caller reads the answer's JSON even when no output guardrail runs (a held answer). */
    keepJson: boolean,
  ): Promise<{ output: GuardrailOutcome | undefined; responseJson: unknown }> {
    const list = leaf.node.settings.output_guardrails;
    const runs = list !== undefined && list.length > 0 && !this.guardrailsOff;
    // A cache hit without output guardrails is not parsed at all (it was a JSON.parse per hit).
    const responseJson = stream || !(runs || keepJson) ? undefined : jsonOrUndefined(body);
    if (!runs) return { output: undefined, responseJson };
    const output = await this.deps.guardrails(list, {
      phase: 'output',
      requestJson: leaf.json,
      responseJson,
      responseText: stream ? streamText(body) : body.toString('utf8'),
      metadata: this.request.metadata,
      provider: leaf.provider,
    });
    this.guardrailRuns.push({ stage: 'output', outcome: output });
    return { output, responseJson };
  }

  /**
   * The target's own limits refused the call (429/412): nothing was sent. A failed attempt, so a
   * fallback moves on whatever its status list; final, since a retry within the request would not
   * find the window or budget any different.
   */
  private refused(leaf: PreparedLeaf, retry: number, error: AppError): LeafOutcome {
    const now = Date.now();
    this.attempts.push({
      ...attemptOf(leaf, retry, now),
      endedAt: now,
      error: { code: error.code ?? 'error', message: error.message, type: error.type },
      unsent: true,
    });
    return { kind: 'error', leaf, error, status: error.status, failed: true, final: true, discard: noop };
  }

  private failed(leaf: PreparedLeaf, attempt: AttemptRecord, error: AppError): LeafOutcome {
    attempt.endedAt = Date.now();
    attempt.error = { code: error.code ?? 'error', message: error.message, type: error.type };
    return { kind: 'error', leaf, error, status: error.status, failed: true, discard: noop };
  }
}

/** An attempt on the leaf's target starting at `startedAt`, not answered yet. */
function attemptOf(leaf: PreparedLeaf, retry: number, startedAt: number): AttemptRecord {
  return {
    targetPath: leaf.node.path,
    provider: leaf.provider,
    customHost: leaf.customHost,
    ref: leaf.ref,
    model: leaf.model,
    retryIndex: retry,
    startedAt,
    statusCode: 0,
    endedAt: 0,
  };
}
