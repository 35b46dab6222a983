// Usage that budgets can trust on OpenAI-style streams: a client that did not ask for usage
// (`stream_options.include_usage`, off in the OpenAI SDK by default) gets it asked for on its
// behalf, and what that adds to the stream is taken out again before the client sees it, so the
// client receives the bytes it would have received calling the provider directly.

/** Chat and text completions: the OpenAI-style APIs whose streams report usage only when asked. */
export function streamsUsageOnRequest(method: string, path: string): boolean {
  return method === 'POST' && (path.endsWith('/chat/completions') || path.endsWith('/completions'));
}

/** A cheap look at the raw body before parsing: only bodies naming `"stream"` can be streams. */
export function mayStream(body: Buffer): boolean {
  return body.includes('"stream"');
}

type Json = Record<string, unknown>;

/**
 * The body to send when the client asked for a stream without usage (undefined otherwise): the
 * client's own fields, in order, with `stream_options.include_usage: true`.
 */
export function withUsageRequested(json: unknown): Json | undefined {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined;
  const body = json as Json;
  if (body.stream !== true) return undefined;
  const options = body.stream_options;
  if (options !== undefined && (typeof options !== 'object' || options === null || Array.isArray(options)))
    return undefined;
  if ((options as Json | undefined)?.include_usage === true) return undefined;
  return { ...body, stream_options: { ...(options as Json | undefined), include_usage: true } };
}

const USAGE_NULL_AFTER = ',"usage":null';
const USAGE_NULL_BEFORE = '"usage":null,';

/**
 * Removes from an event stream what `include_usage` added: the `"usage":null` of every chunk and
 * the final usage-only chunk (`"choices":[]` with a usage object). Works event by event: an event
 * is written once its blank line arrives, untouched unless it holds one of those; at most one
 * incomplete event is held back. The gateway reads the usage from the provider's own bytes.
 */
export class InjectedUsageFilter {
  private pending = '';

  /** The bytes to send for this chunk (possibly empty while an event is incomplete). */
  push(chunk: Buffer): Buffer {
    const text = this.pending + chunk.toString('utf8');
    const end = lastEventEnd(text);
    if (end < 0) {
      this.pending = text;
      return EMPTY;
    }
    this.pending = text.slice(end);
    return Buffer.from(filterEvents(text.slice(0, end)), 'utf8');
  }

  /** What is left when the stream ends (an unterminated last event goes out as it came). */
  end(): Buffer {
    const rest = this.pending;
    this.pending = '';
    return rest === '' ? EMPTY : Buffer.from(filterEvents(rest), 'utf8');
  }
}

const EMPTY = Buffer.alloc(0);

/** Index just past the last blank line (`\n\n`, `\r\n\r\n` or `\r\r`), or -1. */
function lastEventEnd(text: string): number {
  const lf = text.lastIndexOf('\n\n');
  const crlf = text.lastIndexOf('\r\n\r\n');
  const cr = text.lastIndexOf('\r\r');
  const at = Math.max(lf < 0 ? -1 : lf + 2, crlf < 0 ? -1 : crlf + 4, cr < 0 ? -1 : cr + 2);
  return at;
}

/** Complete events (each with its blank line): usage-only ones dropped, `"usage":null` removed. */
function filterEvents(text: string): string {
  if (!text.includes('"usage"')) return text;
  let out = '';
  const separator = /(\r\n\r\n|\n\n|\r\r)/g;
  let start = 0;
  for (let m = separator.exec(text); m; m = separator.exec(text)) {
    const end = m.index + m[0].length;
    out += filterEvent(text.slice(start, end));
    start = end;
  }
  return out + (start < text.length ? filterEvent(text.slice(start)) : '');
}

function filterEvent(event: string): string {
  if (!event.includes('"usage"')) return event;
  if (isUsageOnly(event)) return '';
  return event.replaceAll(USAGE_NULL_AFTER, '').replaceAll(USAGE_NULL_BEFORE, '');
}

/** A `data:` event whose chunk has no choices and a usage object: what include_usage added last. */
function isUsageOnly(event: string): boolean {
  const data = event
    .split(/\r\n|\r|\n/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
    .join('\n');
  if (!data.startsWith('{')) return false;
  try {
    const chunk = JSON.parse(data) as Json;
    return (
      Array.isArray(chunk.choices) &&
      chunk.choices.length === 0 &&
      typeof chunk.usage === 'object' &&
      chunk.usage !== null
    );
  } catch {
    return false;
  }
}
