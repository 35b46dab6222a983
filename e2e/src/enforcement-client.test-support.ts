// HTTP helpers of the enforcement end-to-end tests: the admin REST API client, gateway chat calls
// and bounded polling (a hang guard, never a timing assertion).

export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers are read field by field in the tests
  readonly body: any;
}

/** The control plane's admin API (docs/admin-api/), called with the bootstrap admin key. */
export class AdminClient {
  constructor(
    private readonly base: () => string,
    readonly key: string,
  ) {}

  /** `http://127.0.0.1:<port>` of the control plane (changes when it restarts). */
  baseUrl(): string {
    return this.base();
  }

  async call(method: string, path: string, body?: unknown): Promise<Reply> {
    const res = await fetch(`${this.base()}/v1${path}`, {
      method,
      headers: {
        'x-service-api-key': this.key,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  }

  /** The call, which must answer `expected`; its body. */
  // biome-ignore lint/suspicious/noExplicitAny: see Reply
  async expect(expected: number, method: string, path: string, body?: unknown): Promise<any> {
    const reply = await this.call(method, path, body);
    if (reply.status !== expected) {
      throw new Error(
        `${method} ${path}: ${reply.status} (wanted ${expected}) ${JSON.stringify(reply.body)}`,
      );
    }
    return reply.body;
  }

  post = (path: string, body: unknown) => this.expect(201, 'POST', path, body);
  put = (path: string, body: unknown) => this.expect(200, 'PUT', path, body);
  delete = (path: string) => this.expect(200, 'DELETE', path);

  /** A workspace service key with the data-plane scope; `extra` adds limits or defaults. */
  async createKey(workspaceId: string, name: string, extra: Record<string, unknown> = {}) {
    const created = await this.post('/api-keys/workspace/service', {
      name,
      workspace_id: workspaceId,
      scopes: ['completions.write'],
      ...extra,
    });
    return { id: created.id as string, key: created.key as string };
  }
}

export interface ChatOptions {
  readonly key: string;
  /** `@<slug>` of a managed provider. */
  readonly provider: string;
  readonly metadata?: Record<string, string>;
  /** `x-service-trace-id`, to find the request's log by. */
  readonly traceId?: string;
  /** Prompt text: the mock echoes it, truncated to `maxTokens`. */
  readonly prompt?: string;
  readonly maxTokens?: number;
  /** The client gives up (AbortError) after this long: the hang detector. */
  readonly abortMs?: number;
}

export const DEFAULT_PROMPT = 'one two three four five six seven eight nine ten';

/** One chat completion through a gateway; `status` 0 never happens (a hang throws AbortError). */
export async function chat(gatewayBase: string, options: ChatOptions): Promise<Reply> {
  const res = await fetch(`${gatewayBase}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-api-key': options.key,
      'x-service-provider': options.provider,
      ...(options.metadata ? { 'x-service-metadata': JSON.stringify(options.metadata) } : {}),
      ...(options.traceId ? { 'x-service-trace-id': options.traceId } : {}),
    },
    body: JSON.stringify({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: options.prompt ?? DEFAULT_PROMPT }],
      max_tokens: options.maxTokens ?? 5,
    }),
    signal: AbortSignal.timeout(options.abortMs ?? 10_000),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: kept as text for the failure message
  }
  return { status: res.status, headers: res.headers, body };
}

/**
 * Calls `probe` until `done` holds, at most `boundMs` (a hang guard, not the property measured);
 * returns the last value and when it first held (`performance.now()`).
 */
export async function pollUntil<T>(
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  options: { boundMs?: number; intervalMs?: number; what?: string } = {},
): Promise<{ value: T; at: number }> {
  const deadline = performance.now() + (options.boundMs ?? 10_000);
  let last: T | undefined;
  for (;;) {
    last = await probe();
    const at = performance.now();
    if (done(last)) return { value: last, at };
    if (at > deadline) {
      throw new Error(`${options.what ?? 'condition'} not reached in time; last: ${describe(last)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 5));
  }
}

function describe(value: unknown): string {
  if (value && typeof value === 'object' && 'status' in value) {
    const reply = value as Reply;
    return `${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`;
  }
  return JSON.stringify(value)?.slice(0, 300) ?? String(value);
}

/** Percentile (nearest rank) of a list of numbers. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] ?? Number.NaN;
}

/** Runs `task` over `items` with at most `limit` running at once; results in item order. */
export async function mapLimit<I, O>(items: readonly I[], limit: number, task: (item: I) => Promise<O>) {
  const results: O[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index] as I);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
