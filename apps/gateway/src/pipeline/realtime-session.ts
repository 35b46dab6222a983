// The realtime request kind: a WebSocket session relayed message by message between the client and
// the provider (both ends terminated here with `ws`, so the gateway sees each message). Admitted by
// the same limits as a request; each `response.done` the provider sends is charged as it arrives
// (the turn's admission settled with its usage, the next turn admitted without counting a request
// again), so a budget can stop a long session. The session is one request event, with the usage of
// all its turns, when it closes.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { UsageCharge } from '@aigw/proto';
import type { AppError, Logger } from '@aigw/runtime';
import { createPinnedAgent } from '@aigw/ssrf';
import WebSocket, { type RawData, WebSocketServer } from 'ws';
import {
  type AccessResolver,
  assertNamedModelAllowed,
  limitSubject,
  type ManagedTarget,
  type RequestAccess,
  servedModel,
} from '../access/index.js';
import { asGatewayError, gatewayError, writeErrorToSocket } from '../errors.js';
import type { ActualUsage, Limits } from '../limits/index.js';
import type { ServiceHeaders } from '../request/service-headers.js';
import type { ForwardResult } from '../upstream/forward.js';
import { clientHeadersForProvider, upstreamHeaders } from '../upstream/headers.js';
import type { Usage } from '../upstream/usage.js';
import { authorise } from './authorise.js';
import type { PlainTarget, RequestContext } from './request-context.js';

export interface RealtimeDeps {
  readonly log: Logger;
  readonly limits: Limits | undefined;
  /** Control-plane mode: each turn is allowed as a new request would be, in the snapshot of now. */
  readonly access: AccessResolver | undefined;
}

/** Headers of the client's handshake that the upstream handshake makes for itself. */
const HANDSHAKE = [
  'sec-websocket-key',
  'sec-websocket-version',
  'sec-websocket-extensions',
  'sec-websocket-protocol',
];

/** WebSocket close code 1008: the session broke a policy (its budget ran out). */
const POLICY_VIOLATION = 1008;

/**
 * Stage: the model a session asks for, `?model=` (Azure: `?deployment=`), checked against a managed
 * provider's allow-list as a request's model is (403 `model_not_allowed` before the provider is
 * reached). Limits count a listed Azure deployment as the model it serves; the event keeps what
 * the session named.
 */
export function readRealtimeModel(ctx: RequestContext, managed: ManagedTarget | undefined): void {
  const query = new URLSearchParams(ctx.search);
  const model = query.get('model') ?? '';
  const azure = managed?.provider.id === 'azure-openai';
  const named = azure ? (query.get('deployment') ?? model) : model;
  ctx.model = model;
  ctx.facts.modelRequested = named.slice(0, 256);
  if (!managed) return;
  // Without a model the provider picks one, which no list can check.
  if (named === '' && managed.allowedModels.length > 0) {
    throw gatewayError(
      'model_not_allowed',
      `${managed.ref.slug} allows only some models (its allowed_models): name the session's ${azure ? 'deployment' : 'model'}`,
      { param: azure ? 'deployment' : 'model' },
    );
  }
  assertNamedModelAllowed(managed, named, azure ? 'deployment' : 'model');
  const served = azure && servedModel(managed, named);
  if (served) ctx.model = served;
}

export function createRealtimeRelay(deps: RealtimeDeps) {
  /** The subprotocol the provider chose, per client handshake (the client gets the same one). */
  const chosen = new WeakMap<IncomingMessage, string>();
  const server = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    handleProtocols: (_offered, req) => chosen.get(req) ?? false,
  });

  return {
    refusal(message: string, param?: string): AppError {
      return gatewayError('bad_request', message, param === undefined ? {} : { param });
    },

    /** Resolves when the session is over (or was refused: then the refusal is already written). */
    async relay(ctx: RequestContext, target: PlainTarget, socket: Duplex, head: Buffer): Promise<void> {
      const service = ctx.service as ServiceHeaders;
      const upstreamTarget = await target.provider.buildTarget({ ...target.base, method: 'GET' });
      const url = new URL(upstreamTarget.url);
      url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
      const headers = upstreamHeaders(
        clientHeadersForProvider(ctx.req.headers),
        upstreamTarget,
        service.forwardHeaders,
      );
      if (target.managed) Object.assign(headers, target.managed.setHeaders);
      for (const name of HANDSHAKE) delete headers[name];
      delete headers.host;
      const offered = (ctx.req.headers['sec-websocket-protocol'] ?? '')
        .split(',')
        .map((p) => p.trim())
        .filter((p) => p !== '');
      const result: ForwardResult = {
        status: 0,
        upstreamStartedAt: Date.now(),
        firstByteAt: 0,
        endedAt: 0,
        responseBytes: 0,
        contentType: undefined,
        clientAborted: false,
      };
      ctx.result = result;
      const upstream = new WebSocket(url, offered, {
        headers: headers as Record<string, string>,
        perMessageDeflate: false,
        // A custom host is reached only at the address that was checked (no DNS rebinding).
        ...(target.host ? { agent: createPinnedAgent(target.host.target) } : {}),
      });
      const meter = new TurnMeter(ctx, deps.limits, deps.access, target.provider.id);

      return new Promise<void>((resolve) => {
        const finish = () => {
          result.endedAt ||= Date.now();
          meter.close();
          resolve();
        };
        // The provider refused the handshake: its answer goes to the client as it came.
        upstream.on('unexpected-response', (_req, upRes) => {
          result.firstByteAt = Date.now();
          result.status = upRes.statusCode ?? 502;
          result.contentType = upRes.headers['content-type'];
          const chunks: Buffer[] = [];
          upRes.on('data', (chunk: Buffer) => {
            chunks.push(chunk);
            ctx.facts.response.push(chunk);
          });
          upRes.on('end', () => {
            const body = Buffer.concat(chunks);
            result.responseBytes = body.length;
            const type = upRes.headers['content-type'] ?? 'application/json';
            socket.end(
              `HTTP/1.1 ${result.status} ${upRes.statusMessage ?? ''}\r\ncontent-type: ${type}\r\n` +
                `content-length: ${body.length}\r\nconnection: close\r\n\r\n`,
            );
            socket.destroy();
            upstream.terminate();
            finish();
          });
        });
        upstream.once('error', (err) => {
          if (result.status !== 0) return;
          const error = gatewayError('upstream_unreachable', `Could not reach the provider: ${err.message}`);
          result.error = {
            code: error.code ?? 'upstream_unreachable',
            message: error.message,
            type: error.type,
          };
          ctx.facts.gatewayError = {
            code: error.code ?? 'error',
            message: error.message,
            type: error.type,
            status: error.status,
          };
          if (socket.writable) writeErrorToSocket(socket, error);
          finish();
        });
        upstream.once('open', () => {
          result.firstByteAt = Date.now();
          result.status = 101;
          if (upstream.protocol) chosen.set(ctx.req, upstream.protocol);
          server.handleUpgrade(ctx.req, socket, head, (client) => {
            client.on('message', (data: RawData, binary: boolean) => {
              if (upstream.readyState === WebSocket.OPEN) upstream.send(data, { binary });
            });
            upstream.on('message', (data: RawData, binary: boolean) => {
              const size = byteLength(data);
              result.responseBytes += size;
              if (client.readyState === WebSocket.OPEN) client.send(data, { binary });
              if (!binary) meter.observe(data, (error) => stop(client, upstream, error));
            });
            const closeBoth = (code: number, reason: Buffer) => {
              const closable = (ws: WebSocket) =>
                ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING;
              const safeCode = code >= 1000 && code < 5000 && code !== 1005 && code !== 1006 ? code : 1000;
              if (closable(client)) client.close(safeCode, reason);
              if (closable(upstream)) upstream.close(safeCode, reason);
            };
            client.once('close', (code, reason) => {
              result.clientAborted ||= code === 1006;
              closeBoth(code, reason);
              finish();
            });
            upstream.once('close', (code, reason) => {
              closeBoth(code, reason);
              finish();
            });
            client.on('error', () => upstream.terminate());
            upstream.on('error', () => client.terminate());
          });
        });
      });
    },
  };

  function stop(client: WebSocket, upstream: WebSocket, error: AppError) {
    deps.log.info({ code: error.code }, 'realtime session stopped: its next turn is refused');
    if (client.readyState === WebSocket.OPEN) {
      client.send(
        JSON.stringify({
          type: 'error',
          error: { type: error.type, code: error.code, message: error.message },
        }),
      );
      client.close(POLICY_VIOLATION, (error.code ?? 'limit').slice(0, 100));
    }
    if (upstream.readyState === WebSocket.OPEN) upstream.close(1000);
  }
}

function byteLength(data: RawData): number {
  if (Buffer.isBuffer(data)) return data.length;
  if (Array.isArray(data)) return data.reduce((n, b) => n + b.length, 0);
  return data.byteLength;
}

function text(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

/**
 * Charges a session turn by turn: each `response.done` settles the open admission with that
 * turn's usage and admits the next turn (budgets and token limits only); a refusal stops the
 * session. Sums the usage of every turn for the request event.
 */
class TurnMeter {
  private readonly total: Usage = {
    inputTokens: 0,
    outputTokens: 0,
    totalTokens: 0,
    cachedInputTokens: 0,
    estimated: false,
  };
  private readonly charged: (() => readonly UsageCharge[])[] = [];
  private model: string | undefined;
  private closed = false;
  /** Turns are charged one after the other: a turn done while the last is settled waits for it. */
  private turns: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: RequestContext,
    private readonly limits: Limits | undefined,
    private readonly resolver: AccessResolver | undefined,
    private readonly providerType: string,
  ) {}

  observe(data: RawData, stop: (error: AppError) => void): void {
    const message = text(data);
    if (!message.includes('"session.created"') && !message.includes('"response.done"')) return;
    let event: {
      type?: unknown;
      session?: { model?: unknown };
      response?: { usage?: Record<string, unknown> };
    };
    try {
      event = JSON.parse(message);
    } catch {
      return;
    }
    if (event.type === 'session.created' && typeof event.session?.model === 'string')
      this.model = event.session.model;
    if (event.type !== 'response.done') return;
    const usage = event.response?.usage;
    const turn: ActualUsage = {
      inputTokens: num(usage?.input_tokens),
      outputTokens: num(usage?.output_tokens),
      cachedInputTokens: num(
        (usage?.input_token_details as Record<string, unknown> | undefined)?.cached_tokens,
      ),
      model: this.model ?? this.ctx.model,
      provider: this.providerType,
    };
    this.total.inputTokens += turn.inputTokens;
    this.total.outputTokens += turn.outputTokens;
    this.total.cachedInputTokens += turn.cachedInputTokens ?? 0;
    this.total.totalTokens = this.total.inputTokens + this.total.outputTokens;
    this.ctx.usage = { usage: this.total, model: this.model };
    this.turns = this.turns.then(() => this.nextTurn(turn, stop));
  }

  private async nextTurn(turn: ActualUsage, stop: (error: AppError) => void): Promise<void> {
    const { ctx, limits } = this;
    const admission = ctx.admission;
    if (admission) {
      ctx.admission = undefined;
      this.charged.push(admission.usageCharges);
      await admission.settle(turn);
    }
    if (this.closed || !ctx.access) return;
    try {
      const access = await this.reauthorise();
      if (!limits) return;
      const subject = limitSubject(access, this.providerType, ctx.model);
      ctx.admission = await limits.admit(access.snapshot, subject, {}, true);
      if (this.closed) void ctx.admission.settle(undefined);
    } catch (err) {
      const error = asGatewayError(err);
      ctx.facts.gatewayError = {
        code: error.code ?? 'error',
        message: error.message,
        type: error.type,
        status: error.status,
      };
      stop(error);
    }
  }

  /**
   * The next turn is allowed as a new request on the same credential would be, in the snapshot of
   * now: a key disabled, expired or deleted, a token expired, a scope, provider or model withdrawn
   * ends the session (throws the same error the request would get).
   */
  private async reauthorise(): Promise<RequestAccess> {
    const { ctx, resolver } = this;
    const before = ctx.access as RequestAccess;
    if (!resolver) return before;
    const snapshot = resolver.current();
    const found = resolver.identify(snapshot, ctx.req.headers);
    const identity = found instanceof Promise ? await found : found;
    authorise(identity);
    const access = resolver.resolve(snapshot, identity, ctx.req.headers, ctx.service as ServiceHeaders);
    readRealtimeModel(ctx, access.route.kind === 'managed' ? access.route.target : undefined);
    ctx.access = access;
    return access;
  }

  /** The session ended: what the event reports of the turns already charged. */
  close(): void {
    this.closed = true;
    const { ctx } = this;
    if (this.charged.length === 0) return;
    const charged = this.charged;
    const last = ctx.admission;
    ctx.turnCharges = () => [...charged.flatMap((c) => c()), ...(last ? last.usageCharges() : [])];
  }
}

function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}
