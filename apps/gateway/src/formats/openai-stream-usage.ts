// Usage for OpenAI-style streams whose client did not ask for it, without the client seeing that.
//
// API (the request pipeline wires it; nothing here is called on its own):
//   const { body, changed } = withStreamUsage(requestJson);
//     `body` is what to send upstream: `stream_options.include_usage` set to true, every other field
//     kept. `changed` is false when the client asked for usage itself (or does not stream): then
//     relay the answer untouched, its usage is the client's to see.
//   When `changed`, pipe the upstream answer through `new StreamUsageStripper(onUsage)` (push/end
//   per chunk) or `streamUsageTransform(onUsage)` (a Node Transform). It gives back the bytes the
//   provider would have sent without include_usage: the `"usage":null` OpenAI adds to every chunk is
//   cut out of the provider's bytes (nothing is re-serialised) and the usage-only chunk
//   (`"choices":[]` with a usage object) is dropped whole; `onUsage` receives the usage it carried.
//   Each event goes out as soon as its blank line arrives; at most one event is held.
import { Transform, type TransformCallback } from 'node:stream';
import { obj } from './json.js';
import { openai } from './openai.js';
import { parseSse } from './sse.js';
import type { Json, Usage } from './types.js';
import { completeUsage } from './usage.js';

export interface StreamUsageRequest {
  /** The body to send upstream. */
  readonly body: Json;
  /** Whether include_usage was added (the stream then needs the stripper). */
  readonly changed: boolean;
}

/** A streaming chat / completions request with `stream_options.include_usage` set. */
export function withStreamUsage(body: Json): StreamUsageRequest {
  if (body.stream !== true) return { body, changed: false };
  const options = obj(body.stream_options);
  if (options?.include_usage === true) return { body, changed: false };
  return { body: { ...body, stream_options: { ...options, include_usage: true } }, changed: true };
}

const LF = 10;
const CR = 13;
const NULL_USAGE = ',"usage":null';

/**
 * The JSON text `json` without its top-level `"usage": null` member (with its comma), or undefined
 * when it has none. Strings are skipped whole, so a `"usage"` inside one is never taken.
 */
export function withoutNullUsage(json: string): string | undefined {
  let depth = 0;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === 123 /* { */ || c === 91 /* [ */) depth++;
    else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
    else if (c === 34 /* " */) {
      const start = i;
      for (i++; i < json.length && json.charCodeAt(i) !== 34; i++) if (json.charCodeAt(i) === 92) i++;
      if (depth !== 1 || json.slice(start, i + 1) !== '"usage"') continue;
      const value = /^\s*:\s*null/.exec(json.slice(i + 1));
      if (!value) continue;
      const end = i + 1 + value[0].length;
      let before = start - 1;
      while (before > 0 && /\s/.test(json[before] as string)) before--;
      // `,"usage":null` goes with its comma; a first member `{"usage":null,` with the comma after.
      if (json.charCodeAt(before) === 44 /* , */) return json.slice(0, before) + json.slice(end);
      const comma = /^\s*,/.exec(json.slice(end));
      return json.slice(0, start) + json.slice(comma ? end + comma[0].length : end);
    }
  }
  return undefined;
}

/** Strips what include_usage added from one event-stream block (an event and its blank line). */
function strip(block: Buffer, onUsage: (usage: Usage) => void): Buffer | undefined {
  // latin1 maps each byte to one character and back: the provider's bytes survive untouched.
  const text = block.toString('latin1');
  if (!text.includes('"usage"')) return block;
  if (text.includes('"usage":null') || /"usage"\s*:\s*null/.test(text)) {
    // The usual place: the last member of the chunk, right before its closing brace.
    const close = text.lastIndexOf('}');
    if (close >= NULL_USAGE.length && text.startsWith(NULL_USAGE, close - NULL_USAGE.length)) {
      return Buffer.from(text.slice(0, close - NULL_USAGE.length) + text.slice(close), 'latin1');
    }
    // Elsewhere: the event's single `data:` line, read as JSON text.
    const data = /^data: ?(.*)$/m.exec(text);
    if (data?.index !== undefined && text.indexOf('\ndata:', data.index + 1) < 0) {
      const cut = withoutNullUsage(data[1] as string);
      if (cut !== undefined) {
        const at = data.index + data[0].length - (data[1] as string).length;
        return Buffer.from(text.slice(0, at) + cut + text.slice(at + (data[1] as string).length), 'latin1');
      }
    }
    return block;
  }
  // A usage object: the chunk include_usage added when its choices are empty.
  const [event] = parseSse(block, { dispatchAtEnd: true });
  let parsed: Json | undefined;
  try {
    parsed = event ? obj(JSON.parse(event.data)) : undefined;
  } catch {
    return block;
  }
  const usage = parsed ? openai.eventUsage(parsed) : undefined;
  if (!parsed || !usage) return block;
  onUsage(completeUsage(usage));
  // Some OpenAI-compatible servers put usage on the last content chunk: that chunk stays.
  return Array.isArray(parsed.choices) && parsed.choices.length === 0 ? undefined : block;
}

/**
 * push() the upstream bytes, send what it returns; end() at the upstream's end. Blocks are cut at
 * blank lines (LF, CRLF or CR line ends, a CRLF may be split between chunks).
 */
export class StreamUsageStripper {
  /** Bytes of the unfinished block from earlier chunks. */
  private held: Buffer[] = [];
  /** No byte but line ends since the last line end: a line end now ends the block. */
  private lineEmpty = true;
  /** The last byte seen was a CR: a LF right after it is part of that line end. */
  private afterCr = false;
  /** A dropped block ended on a CR whose LF had not arrived: that LF goes too. */
  private dropLf = false;

  constructor(private readonly onUsage: (usage: Usage) => void) {}

  push(chunk: Buffer): Buffer[] {
    const out: Buffer[] = [];
    let start = 0;
    if (this.dropLf && chunk.length > 0) {
      this.dropLf = false;
      if (chunk[0] === LF) {
        start = 1;
        this.afterCr = false;
      }
    }
    for (let i = start; i < chunk.length; i++) {
      const b = chunk[i];
      if (b !== CR && b !== LF) {
        this.lineEmpty = false;
        this.afterCr = false;
        continue;
      }
      if (b === LF && this.afterCr) {
        this.afterCr = false;
        continue;
      }
      this.afterCr = b === CR;
      if (!this.lineEmpty) {
        this.lineEmpty = true;
        continue;
      }
      // A blank line: the block ends here (with the LF of a CRLF when it is in this chunk).
      let end = i + 1;
      if (b === CR && chunk[end] === LF) {
        end++;
        this.afterCr = false;
      }
      const kept = this.finish(chunk.subarray(start, end));
      if (kept) out.push(kept);
      else if (this.afterCr && end === chunk.length) this.dropLf = true;
      start = end;
      i = end - 1;
    }
    if (start < chunk.length) this.held.push(chunk.subarray(start));
    return out;
  }

  /** The unfinished last block, stripped the same way (a stream may end without a blank line). */
  end(): Buffer[] {
    if (this.held.length === 0) return [];
    const kept = this.finish(Buffer.alloc(0));
    return kept ? [kept] : [];
  }

  private finish(last: Buffer): Buffer | undefined {
    const block = this.held.length === 0 ? last : Buffer.concat([...this.held, last]);
    this.held = [];
    this.lineEmpty = true;
    return strip(block, this.onUsage);
  }
}

/** StreamUsageStripper as a Node Transform (bytes in, bytes out). */
export function streamUsageTransform(onUsage: (usage: Usage) => void): Transform {
  const stripper = new StreamUsageStripper(onUsage);
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
      for (const piece of stripper.push(chunk)) this.push(piece);
      done();
    },
    flush(done: TransformCallback) {
      for (const piece of stripper.end()) this.push(piece);
      done();
    },
  });
}
