// The response transform for config leaves: a call's answer seen through its translation, as a
// readable with the answer's status and headers, so everything after the call (the strategy's
// status checks, output guardrails, the cache, the relay to the client, usage) reads the client's
// shape exactly as it reads an untranslated answer.
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import type { AppError } from '@aigw/runtime';
import type { BodyTranslator } from '../translate/body-translator.js';
import type { Translation } from '../translate/translation.js';
import { HeldBound } from '../upstream/held-bound.js';
import type { UpstreamAnswer, UpstreamExchange } from '../upstream/upstream-exchange.js';

/** The provider's answer, translated chunk by chunk as the reader pulls it. */
class TranslatedResponse extends Readable implements UpstreamAnswer {
  readonly statusCode: number;
  readonly statusMessage: string;
  readonly headers: IncomingHttpHeaders;
  /** The provider's answer arrived whole and was translated to its end. */
  complete = false;
  /** Why the answer was cut off here (larger than a whole translator may hold). */
  tooLarge: AppError | undefined;

  constructor(
    private readonly source: UpstreamAnswer,
    translator: BodyTranslator,
    maxHeldBytes: number,
  ) {
    super();
    this.statusCode = source.statusCode;
    this.statusMessage = source.statusMessage;
    const headers: IncomingHttpHeaders = { ...source.headers, 'content-type': translator.contentType };
    delete headers['content-length'];
    this.headers = headers;
    const held = new HeldBound(translator, maxHeldBytes);
    source.on('data', (chunk: Buffer) => {
      const parts = translator.push(chunk);
      const tooLarge = held.exceeded(chunk.length, parts.length);
      if (tooLarge) {
        // The head may be out already: the answer is cut off, and the event says why.
        this.tooLarge = tooLarge;
        this.destroy();
        return;
      }
      let room = true;
      for (const part of parts) room = this.push(part) && room;
      if (!room) source.pause();
    });
    source.once('end', () => {
      for (const part of translator.end()) this.push(part);
      this.complete = true;
      this.push(null);
    });
    // An answer cut short (never an 'error', upstream-exchange.ts) ends this one the same way.
    source.once('close', () => {
      if (!source.complete) this.destroy();
    });
  }

  override _read(): void {
    this.source.resume();
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    if (!this.source.destroyed && !this.source.complete) this.source.destroy();
    callback(err);
  }
}

/** The exchange with its answer translated; the same exchange when no answer came. */
export function translatedExchange(
  exchange: UpstreamExchange,
  translation: Translation,
  maxHeldBytes: number,
): UpstreamExchange {
  const source = exchange.response;
  if (!source) return exchange;
  const translator = translation.response(source.statusCode, source.headers);
  const response = new TranslatedResponse(source, translator, maxHeldBytes);
  return {
    get startedAt() {
      return exchange.startedAt;
    },
    get firstByteAt() {
      return exchange.firstByteAt;
    },
    response,
    get error() {
      return response.tooLarge ?? exchange.error;
    },
    abort: () => exchange.abort(),
    settle: () => exchange.settle(),
  };
}
