// Rewrites an MCP server's answer so that disabled tools, resources and prompts are not listed: the
// results of list requests (by id) lose the disabled items, in a JSON body or in an SSE stream
// (event by event, every other event and byte relayed unchanged). Used as forward()'s filter.
import type { IncomingHttpHeaders } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import type { ResponseFilter } from '../upstream/forward.js';
import { type Disabled, LIST_FIELDS } from './mcp-messages.js';

/**
 * `listIds`: id -> list field of the list requests this exchange answers; undefined on a GET stream,
 * whose responses (a resumed stream) are matched by the shape of their result instead.
 */
export function listFilter(
  disabled: Disabled,
  listIds: ReadonlyMap<string | number, 'tools' | 'resources' | 'prompts'> | undefined,
): (headers: IncomingHttpHeaders) => ResponseFilter | undefined {
  return (headers) => {
    const type = headers['content-type'] ?? '';
    if (type.startsWith('text/event-stream')) return sseFilter(disabled, listIds);
    if (type.includes('json')) return jsonFilter(disabled, listIds);
    return undefined;
  };
}

const NAME_OF = { tools: 'name', prompts: 'name', resources: 'uri' } as const;

/** The message with disabled items removed from a list result; the same object when nothing changed. */
export function filterMessage(
  message: unknown,
  disabled: Disabled,
  listIds: ReadonlyMap<string | number, 'tools' | 'resources' | 'prompts'> | undefined,
): unknown {
  if (Array.isArray(message)) {
    const out = message.map((m) => filterMessage(m, disabled, listIds));
    return out.some((m, i) => m !== message[i]) ? out : message;
  }
  if (typeof message !== 'object' || message === null) return message;
  const m = message as { id?: unknown; result?: unknown };
  if (typeof m.result !== 'object' || m.result === null) return message;
  if (typeof m.id !== 'string' && typeof m.id !== 'number') return message;
  const fields = listIds
    ? [listIds.get(m.id)].filter((f) => f !== undefined)
    : (Object.values(LIST_FIELDS) as ('tools' | 'resources' | 'prompts')[]);
  let result = m.result as Record<string, unknown>;
  for (const field of fields) {
    const items = result[field];
    const names = disabled[field];
    if (!Array.isArray(items) || names.size === 0) continue;
    const kept = items.filter((item) => {
      const name = (item as Record<string, unknown> | null)?.[NAME_OF[field]];
      return !(typeof name === 'string' && names.has(name));
    });
    if (kept.length !== items.length) result = { ...result, [field]: kept };
  }
  return result === m.result ? message : { ...m, result };
}

function jsonFilter(
  disabled: Disabled,
  listIds: ReadonlyMap<string | number, 'tools' | 'resources' | 'prompts'> | undefined,
): ResponseFilter {
  const chunks: Buffer[] = [];
  return {
    push(chunk) {
      chunks.push(chunk);
      return [];
    },
    end() {
      const body = Buffer.concat(chunks);
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch {
        return [body];
      }
      const filtered = filterMessage(parsed, disabled, listIds);
      return [filtered === parsed ? body : Buffer.from(JSON.stringify(filtered), 'utf8')];
    },
  };
}

const EVENT_END = /\r\n\r\n|\n\n|\r\r/;

function sseFilter(
  disabled: Disabled,
  listIds: ReadonlyMap<string | number, 'tools' | 'resources' | 'prompts'> | undefined,
): ResponseFilter {
  // A multi-byte character may be split between two chunks: the decoder keeps its first bytes.
  const decoder = new StringDecoder('utf8');
  let pending = '';
  const rewrite = (event: string): string => {
    const lines = event.split(/\r\n|\n|\r/);
    const data = lines.filter((l) => l.startsWith('data:')).map((l) => l.slice(l[5] === ' ' ? 6 : 5));
    if (data.length === 0) return event;
    let parsed: unknown;
    try {
      parsed = JSON.parse(data.join('\n'));
    } catch {
      return event;
    }
    const filtered = filterMessage(parsed, disabled, listIds);
    if (filtered === parsed) return event;
    const others = lines.filter((l) => !l.startsWith('data:'));
    return [...others, `data: ${JSON.stringify(filtered)}`].join('\n');
  };
  return {
    push(chunk) {
      pending += decoder.write(chunk);
      const out: Buffer[] = [];
      for (;;) {
        const match = EVENT_END.exec(pending);
        if (!match) break;
        const end = match.index + match[0].length;
        out.push(Buffer.from(`${rewrite(pending.slice(0, match.index))}${match[0]}`, 'utf8'));
        pending = pending.slice(end);
      }
      return out;
    },
    end() {
      const rest = pending + decoder.end();
      pending = '';
      return rest === '' ? [] : [Buffer.from(rewrite(rest), 'utf8')];
    },
  };
}
