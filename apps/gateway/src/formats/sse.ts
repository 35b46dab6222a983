// Server-sent events as the WHATWG HTML standard parses them (§9.2 "event stream interpretation"):
// LF, CRLF and CR line ends, `:` comment lines, `data` lines joined with LF, `event`, `id`, a blank
// line dispatches. One parser core serves a whole buffer (parseSse) and a chunked stream (SseReader).

export interface SseEvent {
  /** The `event` field; 'message' when the event named none (the standard's default type). */
  readonly type: string;
  /** Every `data` line's value of the event, joined with LF. */
  readonly data: string;
  /** The last event id seen so far (it persists across events, as the standard says); '' if none. */
  readonly id: string;
}

export interface SseOptions {
  /**
   * Dispatch an event still open when the input ends (no blank line after it). The standard drops
   * it, since a browser cannot tell a complete stream from a cut one; a gateway reading a body that
   * ended (a provider that omits the last blank line) loses usage that way. Default false.
   */
  readonly dispatchAtEnd?: boolean;
}

const LF = 10;
const CR = 13;
const COLON = 58;
const SPACE = 32;

/** Field parsing and event dispatch, fed one line at a time (a line never holds CR or LF). */
class EventBuilder {
  private data = '';
  private hasData = false;
  private type = '';
  private id = '';

  /** `emit` gets the event's fields, not an object: the usage reader wants only `data`. */
  constructor(private readonly emit: (data: string, type: string, id: string) => void) {}

  /** One line of `text` from `start` to `end` (exclusive), without its line end. */
  line(text: string, start: number, end: number): void {
    if (start === end) {
      this.dispatch();
      return;
    }
    const first = text.charCodeAt(start);
    if (first === COLON) return;
    // The hot case, `data: ...`, is tested without cutting the field name out.
    if (first === 100 /* d */ && text.startsWith('data', start)) {
      const after = start + 4;
      if (after === end) {
        this.append('');
        return;
      }
      if (text.charCodeAt(after) === COLON) {
        const from = text.charCodeAt(after + 1) === SPACE && after + 1 < end ? after + 2 : after + 1;
        this.append(text.slice(from, end));
        return;
      }
    }
    let colon = text.indexOf(':', start);
    if (colon < 0 || colon >= end) colon = end;
    const field = text.slice(start, colon);
    let from = colon + 1;
    if (from < end && text.charCodeAt(from) === SPACE) from++;
    const value = colon === end ? '' : text.slice(from, end);
    this.field(field, value);
  }

  private field(name: string, value: string): void {
    if (name === 'data') this.append(value);
    else if (name === 'event') this.type = value;
    // An id with NUL is ignored (the standard); `retry` only matters to a reconnecting client.
    else if (name === 'id' && !value.includes('\0')) this.id = value;
  }

  private append(value: string): void {
    if (this.hasData) this.data += `\n${value}`;
    else {
      this.data = value;
      this.hasData = true;
    }
  }

  /** A blank line: an event when some `data` was seen, else only the type is reset. */
  dispatch(): void {
    if (this.hasData) {
      this.emit(this.data, this.type || 'message', this.id);
      this.data = '';
      this.hasData = false;
    }
    this.type = '';
  }
}

/**
 * The lines of `text` from `from`, fed to `builder`; returns where the unfinished last line begins
 * (text.length when the text ends with a line end). A CR at the very end is a whole line end: the
 * caller skips a LF that may start the next chunk (`skipLf`).
 */
function feedLines(builder: EventBuilder, text: string, from: number): number {
  // Next CR and LF positions are kept between lines so that neither is searched for twice.
  let nextCr = text.indexOf('\r', from);
  let nextLf = text.indexOf('\n', from);
  let start = from;
  for (;;) {
    if (nextCr >= 0 && nextCr < start) nextCr = text.indexOf('\r', start);
    if (nextLf >= 0 && nextLf < start) nextLf = text.indexOf('\n', start);
    let end: number;
    let next: number;
    if (nextCr < 0 && nextLf < 0) return start;
    if (nextCr < 0 || (nextLf >= 0 && nextLf < nextCr)) {
      end = nextLf;
      next = nextLf + 1;
    } else {
      end = nextCr;
      next = text.charCodeAt(nextCr + 1) === LF ? nextCr + 2 : nextCr + 1;
    }
    builder.line(text, start, end);
    start = next;
  }
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Every event of a whole event-stream body (a string or UTF-8 bytes). */
export function parseSse(body: string | Buffer, options: SseOptions = {}): SseEvent[] {
  const events: SseEvent[] = [];
  forEachSseEvent(body, (event) => events.push(event), options);
  return events;
}

/** parseSse() without the array: `onEvent` is called for each event in order. */
export function forEachSseEvent(
  body: string | Buffer,
  onEvent: (event: SseEvent) => void,
  options: SseOptions = {},
): void {
  forEachSseData(body, (data, type, id) => onEvent({ type, data, id }), options);
}

/** forEachSseEvent() without an object per event (the hot path reads every streamed answer). */
export function forEachSseData(
  body: string | Buffer,
  onData: (data: string, type: string, id: string) => void,
  options: SseOptions = {},
): void {
  const text = stripBom(typeof body === 'string' ? body : body.toString('utf8'));
  const builder = new EventBuilder(onData);
  const rest = feedLines(builder, text, 0);
  if (options.dispatchAtEnd) {
    if (rest < text.length) builder.line(text, rest, text.length);
    builder.dispatch();
  }
}

/**
 * Incremental parser: push() chunks as they arrive (split anywhere, even inside a CRLF or a UTF-8
 * character), take the events each completes; end() once the stream is over.
 */
export class SseReader {
  private readonly decoder = new TextDecoder('utf-8');
  private readonly builder: EventBuilder;
  private out: SseEvent[] = [];
  /** The unfinished last line of what was pushed. */
  private pending = '';
  /** The previous chunk ended with CR: a LF opening the next one belongs to that line end. */
  private skipLf = false;
  private started = false;

  constructor(private readonly options: SseOptions = {}) {
    this.builder = new EventBuilder((data, type, id) => this.out.push({ type, data, id }));
  }

  push(chunk: string | Uint8Array): SseEvent[] {
    let text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    if (!this.started && text.length > 0) {
      this.started = true;
      text = stripBom(text);
    }
    if (this.skipLf && text.length > 0) {
      this.skipLf = false;
      if (text.charCodeAt(0) === LF) text = text.slice(1);
    }
    if (text.length === 0) return this.take();
    let from = 0;
    if (this.pending !== '') {
      // Only the new chunk is searched for the pending line's end: a long line costs linear time.
      const cr = text.indexOf('\r');
      const lf = text.indexOf('\n');
      if (cr < 0 && lf < 0) {
        this.pending += text;
        return this.take();
      }
      const end = cr < 0 ? lf : lf < 0 ? cr : Math.min(cr, lf);
      const line = this.pending + text.slice(0, end);
      this.pending = '';
      this.builder.line(line, 0, line.length);
      from = text.charCodeAt(end) === CR && text.charCodeAt(end + 1) === LF ? end + 2 : end + 1;
    }
    const rest = feedLines(this.builder, text, from);
    this.pending = rest < text.length ? text.slice(rest) : '';
    if (rest === text.length && text.charCodeAt(text.length - 1) === CR) this.skipLf = true;
    return this.take();
  }

  /** The events the end of the stream completes (only with `dispatchAtEnd`). */
  end(): SseEvent[] {
    const tail = this.decoder.decode();
    if (tail !== '') this.push(tail);
    if (this.options.dispatchAtEnd) {
      if (this.pending !== '') this.builder.line(this.pending, 0, this.pending.length);
      this.builder.dispatch();
    }
    this.pending = '';
    return this.take();
  }

  private take(): SseEvent[] {
    if (this.out.length === 0) return [];
    const out = this.out;
    this.out = [];
    return out;
  }
}
