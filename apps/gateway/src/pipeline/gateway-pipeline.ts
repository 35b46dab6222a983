// The gateway's one request pipeline. Every request kind runs the same stages, in this order:
//   identify (service headers, API key or JWT) -> authorise (scope) -> resolve route (config or
//   provider target, custom host checked) -> request body (only when a stage needs it) -> translate
//   (the unified API: an OpenAI-shaped request rewritten for a provider that speaks another) -> admit
//   limits (once) -> call (a plain target, a config's strategy with cache and guardrails, or a
//   realtime session) -> settle limits and publish the request event.
// A prompt completion (`POST /v1/prompts/{id}/completions`) is the same pipeline with two stages of
// its own (prompt-stage.ts): resolve prompt between authorise and resolve route, and the
// prompt body (the rendered chat-completions body) before the body stage.
// MCP requests (`/v1/mcp/<slug>`) run the same stages with their own route (the MCP server, its
// user access, mcp-route.ts) and call (a relay of MCP Streamable HTTP, call-mcp.ts with src/mcp/).
// A failure in any stage is answered by the one error writer (errors.ts) and still settles and
// publishes. Every answer's completing bytes wait until its event is kept (completion-hold.ts). Adding a stage or a request kind touches this file and the stage's own module.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '@aigw/runtime';
import type { Redis } from 'ioredis';
import type { AccessResolver } from '../access/index.js';
import type { GatewayConfig } from '../config.js';
import { asGatewayError, isStackOverflow, writeError, writeErrorToSocket } from '../errors.js';
import type { Limits } from '../limits/index.js';
import { McpCredentials } from '../mcp/mcp-credentials.js';
import { promptReference } from '../prompts/prompt-ref.js';
import { H } from '../request/service-headers.js';
import { createConfigRoute } from '../routing/config-route.js';
import { CustomHostCache } from '../upstream/custom-host-cache.js';
import { admitLimits } from './admit-limits.js';
import { authorise } from './authorise.js';
import { checkBatchModels } from './batch-models.js';
import { callConfig } from './call-config.js';
import { callMcp, readMcpBody } from './call-mcp.js';
import { callUpstream } from './call-upstream.js';
import { holdCompletion, keptPublish } from './completion-hold.js';
import { identify } from './identify.js';
import { MCP_PROVIDER, resolveMcpRoute } from './mcp-route.js';
import { PROMPT_UPSTREAM_PATH, readPromptBody, resolvePrompt } from './prompt-stage.js';
import { createRealtimeRelay, readRealtimeModel } from './realtime-session.js';
import { readConfigBody, readTargetBody } from './request-body.js';
import { createContext, type RequestContext, type RequestKind, V1 } from './request-context.js';
import { resolveRoute } from './resolve-route.js';
import { type Publish, settleAndPublish } from './settle.js';
import { translateRequest } from './translate-request.js';
import { keepUpload } from './upload-capture.js';
import { createUsageClaims } from './usage-claims.js';

export interface PipelineDeps {
  readonly config: GatewayConfig;
  /** Takes the event as a function: the publisher builds it off the request path, in a batch. */
  readonly publish: Publish;
  /**
   * Calls `done` once the events published so far are kept on disk (the publisher's whenKept).
   * With it, each response's completing bytes wait for its event (completion-hold.ts).
   */
  readonly whenKept?: ((done: () => void) => void) | undefined;
  readonly instanceId: string;
  readonly log: Logger;
  /** Response cache storage shared by replicas (configs with `cache`); in-process without it. */
  readonly redis?: Redis | undefined;
  /**
   * Control-plane mode: the key, managed provider or saved config of a request from the snapshot
   * (`accessFromConfig`, one per process). Without it (standalone) `x-service-api-key` is not checked.
   */
  readonly access?: AccessResolver | undefined;
  /** Rate and usage limits; applied in control-plane mode only. */
  readonly limits?: Limits | undefined;
}

export interface GatewayPipeline {
  /** A request whose URL is below `/v1` (plain node:http: express costs more than all of this). */
  http(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** A WebSocket upgrade (realtime sessions) of any URL. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void>;
}

/** The scope of using MCP servers through the gateway (spec 2.5). */
const MCP_INVOKE_SCOPE = 'mcp.invoke';
const MCP_URL_PREFIX = `${V1}/mcp/`;

/** Parsing headroom for the model and usage even when bodies are not kept in events. */
const MIN_CAPTURE = 64 * 1024;

export function createGatewayPipeline(deps: PipelineDeps): GatewayPipeline {
  const { config, log } = deps;
  const captureLimit = Math.max(config.CAPTURE_BODY_MAX_BYTES, MIN_CAPTURE);
  const captureBodies = config.CAPTURE_BODY_MAX_BYTES > 0;
  const customHosts = new CustomHostCache(config.CUSTOM_HOST_ALLOWLIST);
  const configRoute = createConfigRoute({ config, redis: deps.redis, log, customHosts, limits: deps.limits });
  const routeDeps = { access: deps.access, customHosts, maxBodyBytes: config.MAX_BODY_BYTES };
  const bodyDeps = { maxBodyBytes: config.MAX_BODY_BYTES, limits: deps.limits };
  const callDeps = { idleTimeoutMs: config.UPSTREAM_TIMEOUT_MS, maxBodyBytes: config.MAX_BODY_BYTES };
  const realtime = createRealtimeRelay({ log, limits: deps.limits, access: deps.access });
  const mcpDeps = { ...callDeps, credentials: new McpCredentials(config.MASTER_KEY, customHosts, log) };
  const claims = createUsageClaims(deps.redis, log);

  /** An MCP request: who, may they (`mcp.invoke`, the server's user access), limits, the relay. */
  async function mcp(ctx: RequestContext, res: ServerResponse): Promise<void> {
    const pending = identify(ctx, deps.access);
    const caller = pending instanceof Promise ? await pending : pending;
    if (caller) authorise(caller.identity, MCP_INVOKE_SCOPE, 'use MCP servers');
    const route = await resolveMcpRoute(ctx, caller, customHosts);
    const messages = await readMcpBody(ctx, config.MAX_BODY_BYTES);
    await admitLimits(ctx, deps.limits, MCP_PROVIDER);
    await callMcp(ctx, route, messages, mcpDeps, res);
  }

  /** The stages every kind shares, up to the call: who, may they, where to. */
  async function front(ctx: RequestContext, prompt?: string): Promise<void> {
    const pending = identify(ctx, deps.access);
    const caller = pending instanceof Promise ? await pending : pending;
    if (caller) authorise(caller.identity);
    if (prompt !== undefined) resolvePrompt(ctx, caller, prompt);
    const routed = resolveRoute(ctx, caller, routeDeps);
    if (routed) await routed;
  }

  function failed(ctx: RequestContext, err: unknown) {
    const error = asGatewayError(err);
    // A body nested too deep to walk is the client's doing, as cheap to send as any request: a
    // warning without the stack, not an error line with one per request.
    if (error !== err && isStackOverflow(err)) {
      log.warn({ reqId: ctx.id }, `${ctx.kind} request body nested too deeply to process`);
    } else if (error !== err) log.error({ err, reqId: ctx.id }, `${ctx.kind} request failed`);
    ctx.facts.gatewayError = {
      code: error.code ?? 'error',
      message: error.message,
      type: error.type,
      status: error.status,
    };
    const extra: Record<string, string> = {};
    // Both are never empty once known (a trace id is 1-128 characters, a provider id a name).
    if (ctx.facts.traceId !== '') extra[H.traceId] = ctx.facts.traceId;
    if (ctx.facts.provider !== '') extra['x-service-provider'] = ctx.facts.provider;
    return { error, extra };
  }

  return {
    async http(req, res) {
      const mcpRequest = (req.url ?? '').startsWith(MCP_URL_PREFIX);
      const base = createContext(
        req,
        mcpRequest ? 'mcp' : 'http',
        deps.instanceId,
        captureLimit,
        captureBodies,
      );
      // Before any stage can answer: the answer completes only once its event is kept.
      const hold = deps.whenKept && holdCompletion(res);
      const prompt = mcpRequest ? undefined : promptReference(req.method, base.path);
      // A prompt completion goes upstream as chat completions; its event keeps the path it came on.
      const ctx: RequestContext =
        prompt === undefined ? base : { ...base, kind: 'prompt', path: PROMPT_UPSTREAM_PATH };
      try {
        if (mcpRequest) await mcp(ctx, res);
        else {
          await front(ctx, prompt);
          if (prompt !== undefined) await readPromptBody(ctx, bodyDeps);
        }
        const route = ctx.route;
        if (route?.kind === 'config') {
          await readConfigBody(ctx, bodyDeps);
          // The config's targets decide the provider: each call of a target is admitted for it.
          await admitLimits(ctx, deps.limits, '');
          await callConfig(ctx, route.config, configRoute, res, claims);
        } else if (route?.kind === 'target') {
          await readTargetBody(ctx, route.target, bodyDeps);
          const batch = checkBatchModels(ctx, route.target, callDeps);
          if (batch) await batch;
          translateRequest(ctx, route.target);
          await admitLimits(ctx, deps.limits, route.target.provider.id);
          keepUpload(ctx, captureLimit, config.MAX_BODY_BYTES);
          await callUpstream(ctx, route.target, callDeps, res);
        }
      } catch (err) {
        const { error, extra } = failed(ctx, err);
        if (!res.headersSent) writeError(res, error, extra);
        // Drain an unread body so the connection can be reused.
        if (!req.readableEnded) req.resume();
      }
      if (!hold) return settleAndPublish(ctx, deps.publish, claims);
      try {
        settleAndPublish(
          ctx,
          keptPublish(deps.publish, deps.whenKept as (done: () => void) => void, hold),
          claims,
        );
      } catch (err) {
        hold.release();
        throw err;
      }
    },

    async upgrade(req, socket, head) {
      const ctx = createContext(req, 'realtime', deps.instanceId, captureLimit, captureBodies);
      try {
        if (!(req.url ?? '').startsWith(`${V1}/`)) {
          throw realtime.refusal('WebSocket upgrades are served under /v1');
        }
        await front(ctx);
        const route = ctx.route;
        if (route?.kind !== 'target') {
          throw realtime.refusal(
            'configs do not apply to realtime sessions: name a provider instead',
            H.config,
          );
        }
        readRealtimeModel(ctx, route.target.managed);
        await admitLimits(ctx, deps.limits, route.target.provider.id);
        await realtime.relay(ctx, route.target, socket, head);
      } catch (err) {
        const { error, extra } = failed(ctx, err);
        if (socket.writable) writeErrorToSocket(socket, error, extra);
        else socket.destroy();
      }
      settleAndPublish(ctx, deps.publish, claims);
    },
  };
}

export type { RequestKind };
