// The response transform of a translated call, byte by byte: a provider's JSON answer read whole and
// written in the client's shape; its stream (SSE or AWS event stream) read event by event and written
// as OpenAI SSE chunks as they come; an error answer rewritten into the gateway's envelope.
import type { IncomingHttpHeaders } from 'node:http';
import { AwsEventReader } from '../formats/aws-event-reader.js';
import {
  type ChatRequest,
  type ChatStream,
  completionJson,
  type ErrorFields,
  errorEnvelope,
  errorType,
  type ProviderEvent,
} from '../formats/chat-openai.js';
import type { EmbeddingsRequest } from '../formats/embeddings-openai.js';
import { obj } from '../formats/json.js';
import { SseReader } from '../formats/sse.js';
import type { Json } from '../formats/types.js';
import type { ChatCodec } from './chat-codecs.js';
import type { EmbeddingsCodec } from './embedding-codecs.js';

/** A response filter (upstream/forward.ts) that also names the content type of what it writes. */
export interface BodyTranslator {
  readonly contentType: string;
  readonly whole?: boolean;
  push(chunk: Buffer): readonly Buffer[];
  end(): readonly Buffer[];
  status?(): number | undefined;
}

/** Answers `unreadable` made: sent as 502, whatever status the provider gave its unreadable body. */
const unreadableAnswers = new WeakSet<object>();

const JSON_TYPE = 'application/json';
const SSE_TYPE = 'text/event-stream; charset=utf-8';
const DONE = Buffer.from('data: [DONE]\n\n');
const none: readonly Buffer[] = [];

function parse(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Reads the whole body, then writes one answer. */
class WholeBody implements BodyTranslator {
  readonly contentType = JSON_TYPE;
  readonly whole = true;
  private readonly chunks: Buffer[] = [];
  private failed = false;

  constructor(private readonly write: (body: Buffer) => Json) {}

  push(chunk: Buffer): readonly Buffer[] {
    this.chunks.push(chunk);
    return none;
  }

  end(): readonly Buffer[] {
    const answer = this.write(Buffer.concat(this.chunks));
    this.failed = typeof answer === 'object' && answer !== null && unreadableAnswers.has(answer);
    return [Buffer.from(JSON.stringify(answer))];
  }

  status(): number | undefined {
    return this.failed ? 502 : undefined;
  }
}

/** A provider's error answer in the envelope (the provider's status is kept; not a gateway error). */
export function errorBody(
  status: number,
  headers: IncomingHttpHeaders,
  read: (status: number, body: unknown, errorTypeHeader?: string) => ErrorFields,
): BodyTranslator {
  const typeHeader = headers['x-amzn-errortype'];
  return new WholeBody((body) => {
    const parsed = parse(body);
    const fields =
      parsed === undefined
        ? {
            message: body.toString('utf8').slice(0, 500) || `the provider answered ${status}`,
            type: errorType(status),
            code: null,
          }
        : read(status, parsed, Array.isArray(typeHeader) ? typeHeader[0] : typeHeader);
    return errorEnvelope(fields);
  });
}

/** An answer the provider sent that is not what its API documents: a 502-worthy envelope in the body. */
function unreadable(what: string): Json {
  const answer = errorEnvelope({
    message: `the provider's ${what} could not be translated`,
    type: 'api_error',
    code: 'translation_failed',
  });
  if (typeof answer === 'object' && answer !== null) unreadableAnswers.add(answer);
  return answer;
}

const sse = (chunk: Json) => Buffer.from(`data: ${JSON.stringify(chunk)}\n\n`);

/** Provider events in, OpenAI chunks out; an error chunk ends the stream (no [DONE] after it). */
class ChatEvents {
  private stopped = false;

  constructor(private readonly stream: ChatStream) {}

  events(events: readonly ProviderEvent[]): Buffer[] {
    const out: Buffer[] = [];
    for (const event of events) {
      if (this.stopped) break;
      for (const chunk of this.stream.event(event)) {
        out.push(sse(chunk));
        if (chunk.error !== undefined) this.stopped = true;
      }
    }
    return out;
  }

  end(): Buffer[] {
    if (this.stopped) return [];
    this.stopped = true;
    return [...this.stream.end().map(sse), DONE];
  }
}

class SseChat implements BodyTranslator {
  readonly contentType = SSE_TYPE;
  private readonly reader = new SseReader({ dispatchAtEnd: true });

  constructor(private readonly out: ChatEvents) {}

  private read(events: readonly { type: string; data: string }[]): Buffer[] {
    const parsed: ProviderEvent[] = [];
    for (const e of events) {
      const data = obj(parse(Buffer.from(e.data)));
      if (data) parsed.push({ type: e.type, data });
    }
    return this.out.events(parsed);
  }

  push(chunk: Buffer): readonly Buffer[] {
    return this.read(this.reader.push(chunk));
  }

  end(): readonly Buffer[] {
    return [...this.read(this.reader.end()), ...this.out.end()];
  }
}

class AwsChat implements BodyTranslator {
  readonly contentType = SSE_TYPE;
  private readonly reader = new AwsEventReader();

  constructor(private readonly out: ChatEvents) {}

  push(chunk: Buffer): readonly Buffer[] {
    return this.out.events(this.reader.push(chunk));
  }

  end(): readonly Buffer[] {
    return this.out.end();
  }
}

/** A successful chat answer: streamed (by the provider's content type) or whole. */
export function chatBody(
  codec: ChatCodec,
  req: ChatRequest,
  id: string,
  created: number,
  headers: IncomingHttpHeaders,
): BodyTranslator {
  const type = headers['content-type'] ?? '';
  if (type.startsWith('text/event-stream'))
    return new SseChat(new ChatEvents(codec.stream(req, id, created)));
  if (type.startsWith('application/vnd.amazon.eventstream')) {
    return new AwsChat(new ChatEvents(codec.stream(req, id, created)));
  }
  return new WholeBody((body) => {
    const parsed = obj(parse(body));
    return parsed ? completionJson(codec.answer(parsed, req, id), created) : unreadable('answer');
  });
}

export function embeddingsBody(codec: EmbeddingsCodec, req: EmbeddingsRequest): BodyTranslator {
  return new WholeBody((body) => {
    const parsed = obj(parse(body));
    if (!parsed) return unreadable('answer');
    try {
      return codec.answer(parsed, req);
    } catch {
      return unreadable('answer');
    }
  });
}

/** A front door's writer: OpenAI chat chunks in, its own named stream events out. */
export interface FrontStreamWriter {
  chunk(chunk: Json): readonly { readonly type: string; readonly data: Json }[];
  end(): readonly { readonly type: string; readonly data: Json }[];
}

/** Another API in front of OpenAI's chat shape (Anthropic Messages, Responses): how it writes answers. */
export interface FrontDoor {
  stream(): FrontStreamWriter;
  answer(completion: Json): Json;
  /** An error envelope (the provider's, already translated, or OpenAI's own) in the front door's shape. */
  error(status: number, envelope: Json | undefined): Json;
}

const namedSse = (e: { type: string; data: Json }) =>
  Buffer.from(`event: ${e.type}\ndata: ${JSON.stringify(e.data)}\n\n`);

/** OpenAI's stream (from the provider, or from the chat translation before) as the front door's events. */
class FrontStream implements BodyTranslator {
  readonly contentType = SSE_TYPE;
  private readonly reader = new SseReader({ dispatchAtEnd: true });

  constructor(
    private readonly inner: BodyTranslator | undefined,
    private readonly writer: FrontStreamWriter,
  ) {}

  private read(parts: readonly Buffer[], end: boolean): Buffer[] {
    const out: Buffer[] = [];
    const events = parts.flatMap((p) => this.reader.push(p));
    if (end) events.push(...this.reader.end());
    for (const e of events) {
      if (e.data === '[DONE]') continue;
      const chunk = obj(parse(Buffer.from(e.data)));
      if (chunk) out.push(...this.writer.chunk(chunk).map(namedSse));
    }
    if (end) out.push(...this.writer.end().map(namedSse));
    return out;
  }

  push(chunk: Buffer): readonly Buffer[] {
    return this.read(this.inner ? this.inner.push(chunk) : [chunk], false);
  }

  end(): readonly Buffer[] {
    return this.read(this.inner ? this.inner.end() : [], true);
  }
}

/** The whole OpenAI body (answer or error envelope) in the front door's shape. */
class FrontWhole implements BodyTranslator {
  readonly contentType = JSON_TYPE;
  readonly whole = true;
  private readonly chunks: Buffer[] = [];
  private unreadable = false;

  constructor(
    private readonly inner: BodyTranslator | undefined,
    private readonly providerStatus: number,
    private readonly door: FrontDoor,
  ) {}

  push(chunk: Buffer): readonly Buffer[] {
    this.chunks.push(...(this.inner ? this.inner.push(chunk) : [chunk]));
    return none;
  }

  end(): readonly Buffer[] {
    if (this.inner) this.chunks.push(...this.inner.end());
    const parsed = obj(parse(Buffer.concat(this.chunks)));
    const provided = this.providerStatus >= 200 && this.providerStatus < 300;
    // A success the door cannot read (not a JSON object) is no success.
    this.unreadable = provided && parsed === undefined;
    const status = this.status() ?? this.providerStatus;
    const ok = status >= 200 && status < 300 && parsed && parsed.error === undefined;
    const body = ok
      ? this.door.answer(parsed)
      : this.door.error(
          status,
          parsed ?? {
            error: {
              message: "the provider's answer could not be translated",
              type: 'api_error',
              code: 'translation_failed',
            },
          },
        );
    return [Buffer.from(JSON.stringify(body))];
  }

  /** An answer it or the chat translation could not read is 502. */
  status(): number | undefined {
    return this.inner?.status?.() ?? (this.unreadable ? 502 : undefined);
  }
}

/**
 * The answer to a front-door request sent on as OpenAI chat: `inner` is the chat translation's
 * transform (its output is OpenAI's shape), none when the provider answers in OpenAI's shape itself.
 */
export function frontDoorBody(
  status: number,
  headers: IncomingHttpHeaders,
  inner: BodyTranslator | undefined,
  door: FrontDoor,
  stream: boolean,
): BodyTranslator {
  const type = inner?.contentType ?? headers['content-type'] ?? '';
  if (stream && status >= 200 && status < 300 && type.startsWith('text/event-stream')) {
    return new FrontStream(inner, door.stream());
  }
  return new FrontWhole(inner, status, door);
}
