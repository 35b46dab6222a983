// The config branch of the `/v1` pipeline, built once per gateway: reads the body a config needs,
// runs the config (routing/config-pipeline.ts) and hands the request event what happened.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NormalisedConfig } from '@aigw/config-schema';
import type { UsageCharge } from '@aigw/proto';
import type { Logger } from '@aigw/runtime';
import type { Redis } from 'ioredis';
import { type LeafResolver, savedGuardrailIds } from '../access/index.js';
import { createGatewayResponseCache } from '../cache/index.js';
import type { GatewayConfig } from '../config.js';
import { requestModel } from '../formats/request-model.js';
import { createGuardrailRunner, createWebhookCaller, createWebhookHostCheck } from '../guardrails/index.js';
import type { Limits } from '../limits/index.js';
import { readCloudOptions } from '../providers/cloud-headers.js';
import type { ServiceHeaders } from '../request/service-headers.js';
import { BodyCapture, type ChunkSink } from '../upstream/capture.js';
import type { CustomHostCache } from '../upstream/custom-host-cache.js';
import { readJsonBody } from '../upstream/read-body.js';
import { bearer } from '../upstream/target.js';
import type { ResponseFacts } from '../upstream/usage.js';
import { readCacheHeaders } from './cache-headers.js';
import { type ConfigRunReport, runConfig } from './config-pipeline.js';
import { type RoutingFacts, routingFacts } from './event-facts.js';
import { TargetAdmissions } from './target-admissions.js';

/** What the settle of a target's limits reads of the answer: its usage is in the first or last bytes. */
const USAGE_CAPTURE_BYTES = 64 * 1024;

export interface ConfigRouteDeps {
  readonly config: GatewayConfig;
  /** Shared cache storage across replicas; without it the cache lives in this process. */
  readonly redis: Redis | undefined;
  readonly log: Logger;
  readonly customHosts: CustomHostCache;
  /** Control-plane mode: the limits of each config target's provider / virtual key (docs/limits.md). */
  readonly limits?: Limits | undefined;
}

export interface ConfigRequestParts {
  readonly method: string;
  readonly path: string;
  readonly search: string;
  readonly service: ServiceHeaders;
  readonly requestSink: ChunkSink;
  readonly responseSink: ChunkSink;
  /** Control-plane mode: managed providers of the request's workspace, and the merged metadata. */
  readonly managed?: LeafResolver | undefined;
  readonly metadata?: Readonly<Record<string, string>>;
  /** Control-plane mode: the request's workspace, whose cache entries it alone reads and writes. */
  readonly cacheScope?: string | undefined;
  /** The body, when an earlier stage (limits) already read it. */
  readonly preread?: { readonly body: Buffer; readonly json: unknown } | undefined;
  /** The answer's facts as charged (usage an earlier answer claimed is a repeat: pipeline/usage-claims.ts). */
  readonly claimUsage?: ((facts: ResponseFacts) => ResponseFacts | Promise<ResponseFacts>) | undefined;
}

export interface ConfigServed
  extends Omit<ConfigRunReport, 'guardrailResults' | 'attempts' | 'answered' | 'cacheStatus'> {
  readonly routing: RoutingFacts;
  /** The budget counters the targets' own admissions charged (none: undefined), for the event. */
  readonly targetCharges?: (() => readonly UsageCharge[]) | undefined;
}

export type ConfigRoute = (
  req: IncomingMessage,
  res: ServerResponse,
  routed: NormalisedConfig,
  parts: ConfigRequestParts,
) => Promise<ConfigServed>;

export function createConfigRoute(deps: ConfigRouteDeps): ConfigRoute {
  const { config, log } = deps;
  const cache = createGatewayResponseCache(config, deps.redis, (err, stage) =>
    log.warn({ err: err instanceof Error ? err.message : String(err), stage }, 'response cache failure'),
  );
  const guardrails = createGuardrailRunner(config, {
    webhook: createWebhookCaller({
      checkHost: createWebhookHostCheck({ allowlist: config.CUSTOM_HOST_ALLOWLIST }),
    }),
  });
  const pipeline = {
    customHosts: deps.customHosts,
    cache,
    guardrails,
    idleTimeoutMs: config.UPSTREAM_TIMEOUT_MS,
    maxAnswerBytes: config.MAX_BODY_BYTES,
    maxCacheEntryBytes: config.CACHE_MAX_ENTRY_BYTES,
  };

  return async (req, res, routed, parts) => {
    // Targets, retries and override_params each need the body again: a config reads it whole.
    const { body, json } = parts.preread ?? (await readJsonBody(req, config.MAX_BODY_BYTES));
    parts.requestSink.push(body);
    const cacheHeaders = readCacheHeaders(req.headers);
    const gone = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    const { service } = parts;
    const targets =
      deps.limits &&
      parts.managed &&
      new TargetAdmissions(deps.limits, parts.managed, {
        method: parts.method,
        path: parts.path,
        contentType: req.headers['content-type'],
        claimUsage: parts.claimUsage,
      });
    // The answering target's usage settles its limits: kept only once some target was admitted.
    let usageTap: BodyCapture | undefined;
    const responseSink: ChunkSink = targets
      ? {
          push(chunk) {
            parts.responseSink.push(chunk);
            if (!targets.any) return;
            usageTap ??= new BodyCapture(USAGE_CAPTURE_BYTES);
            usageTap.push(chunk);
          },
        }
      : parts.responseSink;
    let report: ConfigRunReport;
    try {
      report = await runConfig(
        res,
        routed,
        {
          method: parts.method,
          path: parts.path,
          search: parts.search,
          headers: req.headers,
          headerProvider: {
            provider: service.provider,
            token: bearer(req.headers.authorization),
            customHost: service.customHost,
            cloud: readCloudOptions(req.headers),
            forwardHeaders: service.forwardHeaders,
            requestTimeoutMs: service.requestTimeoutMs,
            managed: parts.managed,
            model: parts.managed ? requestModel(parts.path, req.headers['content-type'], body, json) : '',
            path: parts.path,
            method: parts.method,
            asked: json,
          },
          metadata: parts.metadata ?? service.metadata,
          cacheHeaders,
          cacheScope: parts.cacheScope ?? '',
          body,
          json,
          signal: gone.signal,
          targetLimits: targets,
        },
        pipeline,
        service.traceId,
        responseSink,
      );
    } catch (err) {
      void targets?.settle(undefined, undefined);
      throw err;
    }
    if (targets?.any) {
      const answered = report.answered;
      // A held answer is the provider's own (a guardrail may have replaced what the client got).
      const held = report.heldAnswer;
      const tapped = usageTap?.complete();
      // Settled before the event reads the charges (an audio upload's duration may be read first).
      await targets.settle(
        answered,
        held
          ? { contentType: held.contentType, head: held.body, tail: held.body, whole: true }
          : {
              contentType: report.result.contentType,
              head: tapped,
              tail: usageTap?.tail(),
              whole: tapped !== undefined,
            },
      );
    }
    // Async guardrails report after the answer went out: the event waits for them, the client does not.
    const guardrailResults = await report.guardrailResults;
    const savedIds = parts.managed && guardrailResults.length > 0 ? savedGuardrailIds(routed) : undefined;
    // Spelled out, without rest and spread (V8's slow clone path on every config request).
    const served: { -readonly [K in keyof ConfigServed]: ConfigServed[K] } = {
      result: report.result,
      provider: report.provider,
      customHost: report.customHost,
      providerRef: report.providerRef,
      routing: routingFacts(report.attempts, report.cacheStatus, guardrailResults, savedIds),
    };
    if (report.heldAnswer) served.heldAnswer = report.heldAnswer;
    if (report.gatewayError) served.gatewayError = report.gatewayError;
    if (targets?.any) served.targetCharges = () => targets.usageCharges();
    return served;
  };
}
