// OpenAI Realtime over WebSocket: checks the upgrade like the API does, then echoes every message.
import { type IncomingMessage, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { WebSocketServer } from 'ws';
import { bearerToken } from './auth.js';
import type { MockState } from './context.js';
import { openaiError, type ProviderError, simulatedError } from './errors.js';
import { retryHeaders } from './http-io.js';
import { countTokens, randomId } from './text.js';
import type { MockKnobs } from './types.js';

export const REALTIME_PATH = '/v1/realtime';
const INSECURE_KEY_PROTOCOL = 'openai-insecure-api-key.';

export interface UpgradeDecision {
  knobs: MockKnobs;
  requestId: string;
  /** Counts the call against fail-first; asked only once auth passed, as for HTTP routes. */
  shouldFail: () => boolean;
}

/** Browsers cannot set headers, so the API also takes the key as a subprotocol. */
function realtimeKey(req: IncomingMessage, state: MockState): ProviderError | undefined {
  const protocols = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
  const fromProtocol = protocols
    .find((p) => p.startsWith(INSECURE_KEY_PROTOCOL))
    ?.slice(INSECURE_KEY_PROTOCOL.length);
  const key = bearerToken(req.headers) ?? fromProtocol;
  if (!key)
    return openaiError(401, 'Missing bearer or basic authentication in header', 'invalid_request_error');
  const allowed = state.apiKeys.openai;
  if (allowed && !allowed.has(key)) {
    return openaiError(401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
  }
  return undefined;
}

/** Refuse an upgrade with a plain HTTP response, as the API does before switching protocols. */
export function rejectUpgrade(socket: Duplex, error: ProviderError, headers: Record<string, string>): void {
  const body = JSON.stringify(error.body);
  const lines = [
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}`,
    'content-type: application/json',
    `content-length: ${Buffer.byteLength(body)}`,
    'connection: close',
    ...Object.entries({ ...headers, ...error.headers }).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

export class RealtimeServer {
  private readonly wss = new WebSocketServer({ noServer: true });

  constructor(private readonly state: MockState) {}

  async upgrade(
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    decision: UpgradeDecision,
  ): Promise<void> {
    const { knobs, requestId } = decision;
    const headers = { 'x-request-id': requestId, ...retryHeaders(knobs) };
    const url = new URL(req.url ?? '/', 'http://mock');
    if (knobs.latencyMs > 0) await sleep(knobs.latencyMs);
    if (url.pathname !== REALTIME_PATH) {
      rejectUpgrade(
        socket,
        openaiError(404, `Invalid URL (GET ${url.pathname})`, 'invalid_request_error'),
        headers,
      );
      return;
    }
    const authError = realtimeKey(req, this.state);
    if (authError) {
      rejectUpgrade(socket, authError, headers);
      return;
    }
    if (knobs.status !== undefined && knobs.status >= 400) {
      rejectUpgrade(socket, simulatedError('openai', knobs.status), headers);
      return;
    }
    if (decision.shouldFail()) {
      rejectUpgrade(socket, simulatedError('openai', knobs.failStatus), headers);
      return;
    }
    const model = url.searchParams.get('model');
    if (!model) {
      rejectUpgrade(
        socket,
        openaiError(400, "Missing required parameter: 'model'.", 'invalid_request_error', null, 'model'),
        headers,
      );
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      ws.send(
        JSON.stringify({
          type: 'session.created',
          event_id: randomId('event_', 8),
          session: {
            id: randomId('sess_', 8),
            object: 'realtime.session',
            model,
            modalities: ['text', 'audio'],
          },
        }),
      );
      ws.on('message', (data, isBinary) => {
        const turn = isBinary ? undefined : responseCreate(data.toString());
        if (turn === undefined) ws.send(data, { binary: isBinary });
        else for (const event of responseEvents(turn)) ws.send(JSON.stringify(event));
      });
    });
  }

  close(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    return new Promise((resolve) => this.wss.close(() => resolve()));
  }
}

/**
 * A `response.create` client event: the text the mock answers with (its `response.instructions`,
 * else a fixed sentence); undefined for every other message, which is echoed.
 */
function responseCreate(message: string): string | undefined {
  if (!message.includes('"response.create"')) return undefined;
  try {
    const event = JSON.parse(message) as { type?: unknown; response?: { instructions?: unknown } };
    if (event.type !== 'response.create') return undefined;
    const instructions = event.response?.instructions;
    return typeof instructions === 'string' && instructions !== '' ? instructions : 'hello from the mock';
  } catch {
    return undefined;
  }
}

/** One turn as the Realtime API streams it, ending with `response.done` and its usage. */
function responseEvents(text: string): object[] {
  const id = randomId('resp_', 8);
  const itemId = randomId('item_', 8);
  const outputTokens = countTokens(text);
  const inputTokens = outputTokens + 5;
  const event = (type: string, fields: object) => ({ type, event_id: randomId('event_', 8), ...fields });
  return [
    event('response.created', {
      response: { object: 'realtime.response', id, status: 'in_progress', output: [] },
    }),
    event('response.text.delta', {
      response_id: id,
      item_id: itemId,
      output_index: 0,
      content_index: 0,
      delta: text,
    }),
    event('response.text.done', {
      response_id: id,
      item_id: itemId,
      output_index: 0,
      content_index: 0,
      text,
    }),
    event('response.done', {
      response: {
        object: 'realtime.response',
        id,
        status: 'completed',
        output: [
          {
            id: itemId,
            object: 'realtime.item',
            type: 'message',
            role: 'assistant',
            content: [{ type: 'text', text }],
          },
        ],
        usage: {
          total_tokens: inputTokens + outputTokens,
          input_tokens: inputTokens,
          output_tokens: outputTokens,
          input_token_details: { cached_tokens: 0, text_tokens: inputTokens, audio_tokens: 0 },
          output_token_details: { text_tokens: outputTokens, audio_tokens: 0 },
        },
      },
    }),
  ];
}
