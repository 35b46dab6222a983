// A request with a config: runs the strategy over the config's leaves (cache lookup, input
// guardrails, calls with retries, output guardrails per leaf), sends the answer it settles on with
// the config's response headers, and stores it in the cache once it went out whole.
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { NormalisedConfig } from '@aigw/config-schema';
import type { ManagedRef } from '../access/index.js';
import {
  CACHE_STATUS_HEADER,
  type CachedResponse,
  type CacheStatus,
  ResponseRecorder,
  replay,
} from '../cache/index.js';
import { isGatewayError } from '../errors.js';
import { jsonOrUndefined } from '../formats/index.js';
import {
  GUARDRAIL_DENIED_HEADERS,
  GUARDRAIL_DENIED_STATUS,
  GUARDRAIL_FAILED_STATUS,
  type GuardrailOutcomes,
  type GuardrailResult,
  guardrailResponseBody,
  guardrailStatus,
} from '../guardrails/index.js';
import { LIMITS_DEGRADED_HEADER } from '../limits/index.js';
import { H } from '../request/service-headers.js';
import type { ChunkSink } from '../upstream/capture.js';
import type { ConfigRequest } from './config-request.js';
import {
  type AttemptRecord,
  type GuardrailRun,
  type LeafCallDeps,
  LeafCaller,
  type LeafOutcome,
} from './leaf-call.js';
import { isJsonObject } from './leaf-upstream.js';
import { type RelayResult, relay, sendBody, sendError } from './relay.js';
import { runStrategy, type StrategyRun } from './strategy.js';

export const RETRY_COUNT_HEADER = 'x-service-retry-attempt-count';
export const LAST_USED_OPTION_HEADER = 'x-service-last-used-option-index';

export interface ConfigPipelineDeps extends LeafCallDeps {
  /** Largest answer the cache stores (CACHE_MAX_ENTRY_BYTES). */
  readonly maxCacheEntryBytes: number;
}

/** What the request event reports of a config run. */
export interface ConfigRunReport {
  readonly result: RelayResult & { upstreamStartedAt: number; firstByteAt: number };
  readonly provider: string;
  readonly customHost: string;
  /** The managed provider or virtual key of the target that answered (control-plane mode). */
  readonly providerRef: ManagedRef | undefined;
  readonly attempts: readonly AttemptRecord[];
  /** The attempt whose answer the client got (none for hits, gateway errors and failed calls). */
  readonly answered: AttemptRecord | undefined;
  /**
   * The provider's answer when the gateway held it whole (output guardrails): its usage counts even
   * when a guardrail replaced what the client got (446/246).
   */
  readonly heldAnswer?: { readonly contentType: string | undefined; readonly body: Buffer };
  readonly cacheStatus: CacheStatus;
  /** The gateway answered itself (an error, a guardrail's 446). */
  readonly gatewayError?: { code: string; message: string; type: string; status: number };
  /** Every guardrail result, input then output, async ones included once they finish (never rejects). */
  readonly guardrailResults: Promise<readonly StagedGuardrailResult[]>;
}

const JSON_TYPE = 'application/json; charset=utf-8';

export async function runConfig(
  res: ServerResponse,
  config: NormalisedConfig,
  request: ConfigRequest,
  deps: ConfigPipelineDeps,
  traceId: string,
  responseSink: ChunkSink,
): Promise<ConfigRunReport> {
  const caller = new LeafCaller(deps, request);
  const context = { metadata: request.metadata, params: isJsonObject(request.json) ? request.json : {} };
  let run: StrategyRun<LeafOutcome>;
  try {
    run = await runStrategy(config, { context, call: caller.call, signal: request.signal });
  } catch (err) {
    if (!isGatewayError(err, 'no_matching_target') || res.destroyed) throw err;
    const path = err.param?.replace(/\.strategy$/, '') ?? config.path;
    const result = await sendError(res, err, configHeaders(traceId, undefined, 0, path, 'DISABLED'), [
      responseSink,
    ]);
    return report(caller, result, undefined, 'DISABLED', {
      code: err.code ?? 'error',
      message: err.message,
      type: err.type,
      status: err.status,
    });
  }
  const { outcome, retries } = run;
  const leaf = outcome.leaf;
  const cacheStatus = leaf?.cache?.status ?? 'DISABLED';
  const extra = configHeaders(traceId, leaf?.provider, retries, run.leaf.path, cacheStatus);
  if (request.targetLimits?.degraded) extra[LIMITS_DEGRADED_HEADER] = 'true';
  const sent = await send(res, outcome, extra, responseSink, deps.maxCacheEntryBytes);
  const last = caller.attempts.at(-1);
  const answered = last && (outcome.kind === 'response' || outcome.kind === 'held') ? last : undefined;
  if (answered) answered.endedAt = sent.result.endedAt;
  const held =
    outcome.kind === 'held'
      ? { contentType: outcome.headers?.['content-type'], body: outcome.body }
      : undefined;
  return report(caller, sent.result, outcome, cacheStatus, sent.gatewayError, answered, held);
}

function configHeaders(
  traceId: string,
  provider: string | undefined,
  retries: number,
  path: string,
  cacheStatus: CacheStatus,
): Record<string, string> {
  return {
    [H.traceId]: traceId,
    ...(provider === undefined ? {} : { 'x-service-provider': provider }),
    [RETRY_COUNT_HEADER]: String(retries),
    [LAST_USED_OPTION_HEADER]: path,
    [CACHE_STATUS_HEADER]: cacheStatus,
  };
}

type GatewayErrorFacts = ConfigRunReport['gatewayError'];

const DENIED: NonNullable<GatewayErrorFacts> = {
  code: 'guardrail_denied',
  message: 'The request was denied by a guardrail',
  type: 'guardrail_error',
  status: GUARDRAIL_DENIED_STATUS,
};

async function send(
  res: ServerResponse,
  outcome: LeafOutcome,
  extra: Record<string, string>,
  sink: ChunkSink,
  maxCacheEntryBytes: number,
): Promise<{ result: RelayResult; gatewayError?: GatewayErrorFacts }> {
  const leaf = outcome.leaf;
  if (res.destroyed) {
    // The client left while the strategy ran: nothing to send, and no 'close' left to wait for.
    outcome.discard();
    const result: RelayResult = {
      status: 0,
      endedAt: Date.now(),
      responseBytes: 0,
      contentType: undefined,
      clientAborted: true,
      complete: false,
    };
    return { result };
  }
  const outcomes: GuardrailOutcomes = { input: leaf?.input };
  switch (outcome.kind) {
    case 'error': {
      const { error } = outcome;
      const result = await sendError(res, error, extra, [sink]);
      const facts = {
        code: error.code ?? 'error',
        message: error.message,
        type: error.type,
        status: error.status,
      };
      return { result, gatewayError: facts };
    }
    case 'denied':
      return { result: await denied(res, outcomes, extra, sink), gatewayError: DENIED };
    case 'hit': {
      const all = { ...outcomes, output: outcome.output };
      if (outcome.status === GUARDRAIL_DENIED_STATUS) {
        return { result: await denied(res, all, extra, sink), gatewayError: DENIED };
      }
      return { result: await replayHit(res, outcome.hit, all, extra, sink) };
    }
    case 'held': {
      const all = { ...outcomes, output: outcome.output };
      if (outcome.status === GUARDRAIL_DENIED_STATUS) {
        return { result: await denied(res, all, extra, sink), gatewayError: DENIED };
      }
      const replaced = guardrailResponseBody(all, outcome.responseJson);
      const body = replaced ? Buffer.from(JSON.stringify(replaced)) : outcome.body;
      const headers = outcome.headers ?? {};
      const result = await sendBody(res, outcome.status, headers, body, extra, [sink]);
      // Only an answer every guardrail passed is stored (hits run the output guardrails again).
      if (result.complete && outcome.status === outcome.providerStatus && leaf?.cache) {
        const recorder = new ResponseRecorder(maxCacheEntryBytes);
        recorder.head(outcome.providerStatus, headers);
        recorder.push(outcome.body);
        recorder.end();
        void leaf.cache.store(recorder.result());
      }
      return { result };
    }
    case 'response': {
      const { exchange } = outcome;
      const response = exchange.response;
      const recorder = leaf?.cache ? new ResponseRecorder(maxCacheEntryBytes) : undefined;
      if (recorder && response) recorder.head(response.statusCode, response.headers);
      const result = await relay(res, exchange, extra, recorder ? [sink, recorder] : [sink]);
      if (recorder && result.complete) {
        recorder.end();
        void leaf?.cache?.store(recorder.result());
      }
      return { result };
    }
  }
}

function denied(
  res: ServerResponse,
  outcomes: GuardrailOutcomes,
  extra: Record<string, string>,
  sink: ChunkSink,
): Promise<RelayResult> {
  const body = Buffer.from(JSON.stringify(guardrailResponseBody(outcomes)));
  const headers: IncomingHttpHeaders = { ...GUARDRAIL_DENIED_HEADERS, 'content-type': JSON_TYPE };
  return sendBody(res, GUARDRAIL_DENIED_STATUS, headers, body, extra, [sink]);
}

/** A stored answer; with a failed guardrail (no deny) it becomes a 246 with hook_results. */
async function replayHit(
  res: ServerResponse,
  hit: CachedResponse,
  outcomes: GuardrailOutcomes,
  extra: Record<string, string>,
  sink: ChunkSink,
): Promise<RelayResult> {
  let served = hit;
  if (guardrailStatus(outcomes, hit.status) === GUARDRAIL_FAILED_STATUS) {
    const replaced = hit.streamed ? undefined : guardrailResponseBody(outcomes, jsonOrUndefined(hit.body));
    served = {
      ...hit,
      status: GUARDRAIL_FAILED_STATUS,
      ...(replaced ? { body: Buffer.from(JSON.stringify(replaced)) } : {}),
    };
  }
  sink.push(served.body);
  await replay(res, served, extra);
  return {
    status: served.status,
    endedAt: Date.now(),
    responseBytes: served.body.length,
    contentType: served.headers['content-type'],
    clientAborted: !res.writableFinished,
    complete: res.writableFinished,
  };
}

function report(
  caller: LeafCaller,
  result: RelayResult,
  outcome: LeafOutcome | undefined,
  cacheStatus: CacheStatus,
  gatewayError: GatewayErrorFacts,
  answered?: AttemptRecord,
  heldAnswer?: ConfigRunReport['heldAnswer'],
): ConfigRunReport {
  const exchange = outcome?.kind === 'response' || outcome?.kind === 'held' ? outcome.exchange : undefined;
  const sent = caller.attempts.filter((a) => !a.unsent);
  // Spelled out, without spreads (V8's slow clone path on every config request).
  const out: { -readonly [K in keyof ConfigRunReport]: ConfigRunReport[K] } = {
    result: {
      status: result.status,
      // The event reads `endedAt` as the upstream's end: none when no call was made (a cache hit).
      endedAt: sent.length > 0 ? result.endedAt : 0,
      responseBytes: result.responseBytes,
      contentType: result.contentType,
      clientAborted: result.clientAborted,
      complete: result.complete,
      upstreamStartedAt: sent[0]?.startedAt ?? 0,
      firstByteAt: exchange?.firstByteAt ?? 0,
    },
    provider: outcome?.leaf?.provider ?? '',
    customHost: outcome?.leaf?.customHost ?? '',
    providerRef: outcome?.leaf?.ref,
    attempts: caller.attempts,
    answered,
    cacheStatus,
    guardrailResults: stagedResults(caller.guardrailRuns),
  };
  if (result.error !== undefined) out.result.error = result.error;
  if (gatewayError) out.gatewayError = gatewayError;
  if (heldAnswer) out.heldAnswer = heldAnswer;
  return out;
}

export interface StagedGuardrailResult extends GuardrailResult {
  readonly stage: 'input' | 'output';
  /** This failure denied the request (446). */
  readonly denied: boolean;
}

async function stagedResults(runs: readonly GuardrailRun[]): Promise<StagedGuardrailResult[]> {
  const ordered = [...runs].sort((a, b) => (a.stage === b.stage ? 0 : a.stage === 'input' ? -1 : 1));
  const out: StagedGuardrailResult[] = [];
  for (const { stage, outcome } of ordered) {
    for (const r of outcome.results)
      out.push({ ...r, stage, denied: outcome.denied && !r.verdict && r.deny });
    for (const r of (await outcome.asyncResults) ?? []) out.push({ ...r, stage, denied: false });
  }
  return out;
}
