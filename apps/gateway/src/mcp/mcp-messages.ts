// What the gateway reads of the JSON-RPC messages a client POSTs to an MCP server: the requests (id,
// method, the tool, resource or prompt they name), and which of them capabilities refuse. Everything
// else is relayed as sent; only the list results of the requests found here are rewritten later.

/** The `McpCapabilities` of a server as sets (built once per server entity, see mcp-route.ts). */
export interface Disabled {
  readonly tools: ReadonlySet<string>;
  readonly resources: ReadonlySet<string>;
  readonly prompts: ReadonlySet<string>;
}

export interface McpRequest {
  readonly id: string | number;
  readonly method: string;
  /** The tool (tools/call), prompt (prompts/get) or resource URI (resources/read) named; '' if none. */
  readonly target: string;
}

export interface ReadMessages {
  /** The requests (notifications and responses have no id or no method and are left out). */
  readonly requests: readonly McpRequest[];
  /** Whether the body was a JSON-RPC batch (an array). */
  readonly batch: boolean;
}

/** The list methods whose results capabilities filter, and the result field each filters. */
export const LIST_FIELDS: Readonly<Record<string, 'tools' | 'resources' | 'prompts'>> = {
  'tools/list': 'tools',
  'resources/list': 'resources',
  'prompts/list': 'prompts',
};

function targetOf(method: string, params: unknown): string {
  if (typeof params !== 'object' || params === null) return '';
  const p = params as { name?: unknown; uri?: unknown };
  if (method === 'tools/call' || method === 'prompts/get') return typeof p.name === 'string' ? p.name : '';
  if (method === 'resources/read') return typeof p.uri === 'string' ? p.uri : '';
  return '';
}

/** The requests of a parsed body (a message or a batch); undefined when it is not JSON-RPC. */
export function readMessages(json: unknown): ReadMessages | undefined {
  const batch = Array.isArray(json);
  const messages = batch ? (json as unknown[]) : [json];
  const requests: McpRequest[] = [];
  for (const message of messages) {
    if (typeof message !== 'object' || message === null) return undefined;
    const m = message as { id?: unknown; method?: unknown; params?: unknown };
    if (typeof m.method !== 'string') continue;
    if (typeof m.id !== 'string' && typeof m.id !== 'number') continue;
    requests.push({ id: m.id, method: m.method, target: targetOf(m.method, m.params) });
  }
  return { requests, batch };
}

/** Why capabilities refuse a request; undefined when they allow it. */
export function refusal(request: McpRequest, disabled: Disabled): string | undefined {
  const { method, target } = request;
  if (method === 'tools/call' && disabled.tools.has(target))
    return `tool "${target}" is disabled on this MCP server`;
  if (method === 'prompts/get' && disabled.prompts.has(target))
    return `prompt "${target}" is disabled on this MCP server`;
  if (method === 'resources/read' && disabled.resources.has(target))
    return `resource "${target}" is disabled on this MCP server`;
  return undefined;
}

/** JSON-RPC "Invalid params": what MCP servers answer for an unknown tool (MCP spec, tools). */
export const REFUSED_CODE = -32602;

export function errorResponse(id: string | number, message: string): Record<string, unknown> {
  return { jsonrpc: '2.0', id, error: { code: REFUSED_CODE, message } };
}

/** The JSON-RPC error code of the answer to request `id` (a JSON body or SSE events); 0 when none. */
export function answerErrorCode(body: Buffer | undefined, id: string | number): number {
  if (!body || body.length === 0) return 0;
  const text = body.toString('utf8');
  const candidates =
    text.trimStart().startsWith('{') || text.trimStart().startsWith('[')
      ? [text]
      : text
          .split(/\r\n\r\n|\n\n/)
          .map((event) =>
            event
              .split(/\r\n|\n/)
              .filter((l) => l.startsWith('data:'))
              .map((l) => l.slice(l[5] === ' ' ? 6 : 5))
              .join('\n'),
          )
          .filter((data) => data !== '');
  for (const candidate of candidates) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(candidate);
    } catch {
      continue;
    }
    for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
      const m = message as { id?: unknown; error?: { code?: unknown } } | null;
      if (m?.id === id && typeof m.error?.code === 'number') return m.error.code;
    }
  }
  return 0;
}
