// The MCP request kind's body and call stages. The gateway relays MCP Streamable HTTP (it does not
// terminate MCP, docs/decisions.md): a POST's JSON-RPC body is read and parsed to find the requests
// (refusing calls of disabled tools, prompts and resources with a JSON-RPC error), the server's
// credentials replace whatever the client sent, and the answer streams back through forward(),
// rewritten only where it lists tools, resources or prompts capabilities disable.
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { gatewayError } from '../errors.js';
import type { McpCredentials } from '../mcp/mcp-credentials.js';
import { listFilter } from '../mcp/mcp-filter.js';
import {
  answerErrorCode,
  errorResponse,
  LIST_FIELDS,
  type McpRequest,
  REFUSED_CODE,
  type ReadMessages,
  readMessages,
  refusal,
} from '../mcp/mcp-messages.js';
import { H } from '../request/service-headers.js';
import { forward } from '../upstream/forward.js';
import { readBody } from '../upstream/read-body.js';
import { MCP_PROVIDER, type McpRoute } from './mcp-route.js';
import type { RequestContext } from './request-context.js';

export interface McpCallDeps {
  readonly credentials: McpCredentials;
  readonly idleTimeoutMs: number;
  readonly maxBodyBytes: number;
}

/** Client headers an MCP server may see; everything else (its own Authorization included) stays. */
const RELAYED = [
  'accept',
  'content-type',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
  'user-agent',
];

/** A POST's JSON-RPC messages (undefined for GET and DELETE, whose bodies are empty and streamed). */
export async function readMcpBody(
  ctx: RequestContext,
  maxBodyBytes: number,
): Promise<ReadMessages | undefined> {
  if (ctx.method !== 'POST') return undefined;
  if (Number(ctx.req.headers['content-length'] ?? 0) > maxBodyBytes) {
    throw gatewayError('payload_too_large', `The request body is larger than ${maxBodyBytes} bytes`);
  }
  const body = await readBody(ctx.req, maxBodyBytes);
  ctx.body = body;
  try {
    ctx.json = JSON.parse(body.toString('utf8'));
  } catch {
    throw gatewayError('invalid_json', 'The request body is not valid JSON (MCP POSTs carry JSON-RPC)');
  }
  const messages = readMessages(ctx.json);
  if (!messages) throw gatewayError('bad_request', 'The request body is not a JSON-RPC message or batch');
  const first = messages.requests[0];
  const call = messages.requests.find((r) => r.method === 'tools/call');
  const mcp = ctx.facts.mcp;
  if (mcp) {
    mcp.rpcMethod = first?.method.slice(0, 128) ?? '';
    mcp.tool = call?.target.slice(0, 256) ?? '';
  }
  // The tool is the "model" of an MCP call: limit policies on `model` and the logs' model column.
  ctx.model = call?.target.slice(0, 256) ?? '';
  ctx.facts.modelRequested = ctx.model;
  return messages;
}

export async function callMcp(
  ctx: RequestContext,
  route: McpRoute,
  messages: ReadMessages | undefined,
  deps: McpCallDeps,
  res: ServerResponse,
): Promise<void> {
  const extra: Record<string, string> = {
    ...ctx.limitHeaders,
    [H.traceId]: ctx.facts.traceId,
    'x-service-provider': MCP_PROVIDER,
  };
  const refused = messages?.requests.find((r) => refusal(r, route.disabled) !== undefined);
  if (messages && refused) return refuse(ctx, messages, route, refused, extra, res);

  const integration = route.integration;
  const authorization = await deps.credentials.authorization({
    id: integration.id,
    version: integration.version,
    envelope: integration.body.value.encryptedCredentials,
  });
  const headers: OutgoingHttpHeaders = {};
  for (const name of RELAYED) {
    const value = ctx.req.headers[name];
    if (value !== undefined) headers[name] = value;
  }
  if (authorization !== undefined) headers.authorization = authorization;
  if (ctx.body) headers['content-length'] = String(ctx.body.length);

  const lists = new Map<string | number, 'tools' | 'resources' | 'prompts'>();
  for (const request of messages?.requests ?? []) {
    const field = LIST_FIELDS[request.method];
    if (field) lists.set(request.id, field);
  }
  const { disabled } = route;
  const anyDisabled = disabled.tools.size + disabled.resources.size + disabled.prompts.size > 0;
  // Only answers that can list something are parsed: a tools/call result streams through untouched.
  const filter = !anyDisabled
    ? undefined
    : ctx.method === 'GET'
      ? listFilter(disabled, undefined)
      : lists.size > 0
        ? listFilter(disabled, lists)
        : undefined;
  const service = ctx.service;
  ctx.result = await forward(res, {
    method: ctx.method,
    url: route.url,
    headers,
    body: ctx.body ?? ctx.req,
    lookup: route.host.lookup,
    timeoutMs: service?.requestTimeoutMs,
    idleTimeoutMs: deps.idleTimeoutMs,
    maxBodyBytes: deps.maxBodyBytes,
    extraResponseHeaders: extra,
    requestSink: ctx.facts.request,
    responseSink: ctx.facts.response,
    responseFilter: filter,
  });
  const mcp = ctx.facts.mcp;
  const first = messages?.requests[0];
  if (mcp && first) mcp.rpcErrorCode = answerErrorCode(ctx.facts.response.complete(), first.id);
}

/** Refused requests get a JSON-RPC error each; a batch holding one is refused whole (batches are all or nothing here). */
function refuse(
  ctx: RequestContext,
  messages: ReadMessages,
  route: McpRoute,
  refused: McpRequest,
  extra: Record<string, string>,
  res: ServerResponse,
): void {
  const reason = refusal(refused, route.disabled) as string;
  const answers = messages.requests.map((r) =>
    errorResponse(r.id, refusal(r, route.disabled) ?? `refused with its batch: ${reason}`),
  );
  const body = Buffer.from(JSON.stringify(messages.batch ? answers : answers[0]), 'utf8');
  if (ctx.body) ctx.facts.request.push(ctx.body);
  ctx.facts.response.push(body);
  ctx.facts.gatewayError = {
    code: 'mcp_capability_disabled',
    message: reason,
    type: 'permission_error',
    status: 200,
  };
  const mcp = ctx.facts.mcp;
  if (mcp) mcp.rpcErrorCode = REFUSED_CODE;
  res.writeHead(200, { ...extra, 'content-type': 'application/json', 'content-length': String(body.length) });
  res.end(body);
}
