// The few admin API calls the stack itself makes (the quick start's demo setup), with the admin key.

export interface AdminReply {
  readonly status: number;
  // biome-ignore lint/suspicious/noExplicitAny: admin API JSON, read field by field by the caller
  readonly body: any;
}

export class AdminApiError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly reply: AdminReply,
  ) {
    const message = reply.body?.error?.message ?? JSON.stringify(reply.body);
    super(`${method} ${path}: ${reply.status} ${message}`);
    this.name = 'AdminApiError';
  }
}

export class AdminClient {
  constructor(
    /** `http://<host>:<port>/v1` of the control plane. */
    private readonly baseUrl: string,
    private readonly adminKey: string,
  ) {}

  /** One call; any status is returned (the caller decides what a 404 means). */
  async call(method: string, path: string, body?: unknown): Promise<AdminReply> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        'x-service-api-key': this.adminKey,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // not JSON: kept as text for the error message
    }
    return { status: res.status, body: parsed };
  }

  /** A call that must answer one of `expected`; throws AdminApiError otherwise. */
  async expect(
    method: string,
    path: string,
    expected: readonly number[],
    body?: unknown,
  ): Promise<AdminReply> {
    const reply = await this.call(method, path, body);
    if (!expected.includes(reply.status)) throw new AdminApiError(method, path, reply);
    return reply;
  }
}
