// The mock provider server: records every call, applies knobs, checks auth, then runs the route.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type AuthKind,
  checkAnthropicAuth,
  checkAzureAuth,
  checkCohereAuth,
  checkGoogleAuth,
  checkGoogleKeyAuth,
  checkOpenAiAuth,
} from './auth.js';
import type { MockState, RouteContext } from './context.js';
import { handleControl } from './control.js';
import { openaiError, type ProviderError, simulatedError } from './errors.js';
import { FailCounter } from './fail-counter.js';
import { providerHeaders, sendBody, sendError } from './http-io.js';
import { applyPatch, effectiveKnobs, KnobError, knobsFromOptions, scenarioOf } from './knobs.js';
import { ROUTES } from './providers/routes.js';
import { REALTIME_PATH, RealtimeServer, rejectUpgrade } from './realtime.js';
import { buildRecord, readBody, splitUrl } from './record.js';
import { matchRoute, type Route } from './router.js';
import { verifySigV4 } from './sigv4-verify.js';
import { randomId } from './text.js';
import type {
  AwsCredentials,
  KeyedProvider,
  KnobPatch,
  MockKnobs,
  MockOptions,
  MockProvider,
  RecordedRequest,
} from './types.js';

/** Credentials Bedrock requests must be signed with when `options.aws` is not given. */
export const DEFAULT_AWS_CREDENTIALS: Readonly<AwsCredentials> = Object.freeze({
  accessKeyId: 'AKIDMOCKPROVIDER0000',
  secretAccessKey: 'mock-provider-secret-access-key',
});

const KEYED: readonly KeyedProvider[] = ['openai', 'anthropic', 'azure', 'vertex', 'google', 'cohere'];

/** Unknown paths: OpenAI's own 404, unauthenticated so any path a gateway forwards is visible. */
const CATCH_ALL: Route = {
  methods: [],
  pattern: /^/,
  provider: 'mock',
  style: 'openai',
  auth: 'none',
  handle: (ctx) =>
    sendError(
      ctx,
      openaiError(404, `Invalid URL (${ctx.req.method} ${ctx.record.path})`, 'invalid_request_error'),
    ),
};

function keySets(apiKeys: MockOptions['apiKeys']): MockState['apiKeys'] {
  if (apiKeys === undefined) return {};
  const out: MockState['apiKeys'] = {};
  for (const provider of KEYED) {
    const list = Array.isArray(apiKeys)
      ? apiKeys
      : (apiKeys as Partial<Record<KeyedProvider, readonly string[]>>)[provider];
    if (list) out[provider] = new Set(list);
  }
  return out;
}

function authenticate(kind: AuthKind, ctx: RouteContext): ProviderError | undefined {
  const { state, req } = ctx;
  switch (kind) {
    case 'openai':
      return checkOpenAiAuth(state, req.headers);
    case 'anthropic':
      return checkAnthropicAuth(state, req.headers);
    case 'azure':
      return checkAzureAuth(state, req.headers);
    case 'google':
      return checkGoogleAuth(state, req.headers);
    case 'google-key':
      return checkGoogleKeyAuth(state, req.headers);
    case 'cohere':
      return checkCohereAuth(state, req.headers);
    case 'sigv4': {
      const result = verifySigV4(
        {
          method: req.method ?? 'GET',
          url: req.url ?? '/',
          headers: req.headersDistinct,
          body: ctx.record.body,
        },
        state.aws,
      );
      if (!result.ok) return result.error;
      ctx.record.params.region = result.region;
      return undefined;
    }
    case 'none':
      return undefined;
  }
}

/** Keeps the exact bytes written to `res` on the record, so tests can compare what a proxy relayed. */
function recordResponse(res: ServerResponse, record: RecordedRequest): void {
  const sent: Buffer[] = [];
  const keep = (chunk: unknown) => {
    if (typeof chunk === 'string' || chunk instanceof Uint8Array) sent.push(Buffer.from(chunk));
  };
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    keep(chunk);
    record.response = { status: res.statusCode, body: Buffer.concat(sent) };
    return write(chunk, ...rest);
  }) as ServerResponse['write'];
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    if (typeof chunk !== 'function') keep(chunk);
    record.response = { status: res.statusCode, body: Buffer.concat(sent) };
    return end(chunk, ...rest);
  }) as ServerResponse['end'];
}

export async function createMockProvider(options: MockOptions = {}): Promise<MockProvider> {
  const initialKnobs = knobsFromOptions(options);
  let knobs: MockKnobs = initialKnobs;
  const requests: RecordedRequest[] = [];
  const maxRecorded = options.maxRecorded ?? 10_000;
  const remember = (record: RecordedRequest) => {
    if (maxRecorded === 0) return;
    requests.push(record);
    if (requests.length > maxRecorded) requests.splice(0, requests.length - maxRecorded);
  };
  const counter = new FailCounter();
  const state: MockState = {
    files: new Map(),
    aws: options.aws ?? DEFAULT_AWS_CREDENTIALS,
    apiKeys: keySets(options.apiKeys),
  };
  const realtime = new RealtimeServer(state);

  async function handleProvider(req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void> {
    const requestId = randomId('req_', 12);
    const record = buildRecord({ req, body, requestId });
    remember(record);
    if (maxRecorded > 0) recordResponse(res, record);
    const { rawPath, rawQuery } = splitUrl(req.url ?? '/');
    const match = matchRoute(ROUTES, req.method ?? 'GET', rawPath);
    const route = match?.route ?? CATCH_ALL;
    record.provider = route.provider;
    record.params = match?.params ?? {};
    for (const [name, value] of Object.entries(providerHeaders(route.provider, requestId)))
      res.setHeader(name, value);
    let effective: MockKnobs;
    try {
      effective = effectiveKnobs(knobs, req.headers);
    } catch (err) {
      if (!(err instanceof KnobError)) throw err;
      sendError({ res, knobs }, openaiError(400, `x-mock header: ${err.message}`, 'invalid_request_error'));
      return;
    }
    const ctx: RouteContext = {
      req,
      res,
      record,
      params: record.params,
      query: new URLSearchParams(rawQuery),
      knobs: effective,
      style: route.style,
      state,
    };
    if (effective.latencyMs > 0) await sleep(effective.latencyMs);
    const refused = route.precheck?.(ctx) ?? authenticate(route.auth, ctx);
    if (refused) {
      sendError(ctx, refused);
      return;
    }
    if (effective.status !== undefined && effective.status >= 400) {
      sendError(ctx, simulatedError(route.style, effective.status));
      return;
    }
    if (counter.shouldFail(scenarioOf(req.headers), effective.failFirst)) {
      sendError(ctx, simulatedError(route.style, effective.failStatus));
      return;
    }
    await route.handle(ctx);
  }

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    if ((req.url ?? '/').startsWith('/_mock/')) return handleControl(mock, req, res, body);
    await handleProvider(req, res, body);
  }

  async function onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const requestId = randomId('req_', 12);
    const record = buildRecord({ req, body: Buffer.alloc(0), requestId, upgrade: true });
    const url = new URL(req.url ?? '/', 'http://mock');
    record.provider = url.pathname === REALTIME_PATH ? 'openai' : 'mock';
    const model = url.searchParams.get('model');
    if (model) record.params = { model };
    remember(record);
    let effective: MockKnobs;
    try {
      effective = effectiveKnobs(knobs, req.headers);
    } catch (err) {
      if (!(err instanceof KnobError)) throw err;
      const error = openaiError(400, `x-mock header: ${err.message}`, 'invalid_request_error');
      rejectUpgrade(socket, error, { 'x-request-id': requestId });
      return;
    }
    await realtime.upgrade(req, socket, head, {
      knobs: effective,
      requestId,
      shouldFail: () => counter.shouldFail(scenarioOf(req.headers), effective.failFirst),
    });
  }

  const server = createServer((req, res) => {
    onRequest(req, res).catch((err: unknown) => {
      // A handler bug must be loud in tests but must not take the whole mock down.
      if (res.headersSent) res.destroy();
      else
        sendBody(
          res,
          500,
          'application/json',
          JSON.stringify({
            error: {
              message: `mock provider bug: ${String(err)}`,
              type: 'mock_error',
              param: null,
              code: null,
            },
          }),
        );
    });
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    onUpgrade(req, socket, head).catch(() => socket.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  const mock: MockProvider = {
    url: `http://${urlHost}:${address.port}`,
    port: address.port,
    requests,
    get knobs() {
      return knobs;
    },
    clear() {
      requests.length = 0;
      counter.reset();
      state.files.clear();
    },
    resetCounters(scenario?: string) {
      counter.reset(scenario);
    },
    configure(patch: KnobPatch) {
      knobs = applyPatch(knobs, patch);
      if ('failFirst' in patch) counter.reset();
    },
    reset() {
      knobs = initialKnobs;
      mock.clear();
    },
    async close() {
      await realtime.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
  return mock;
}
