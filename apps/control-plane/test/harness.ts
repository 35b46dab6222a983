// Integration-test harness: a control plane per test file on its own database and NATS namespace,
// bootstrapped with a known admin key, and a small JSON client for the admin API.
import { test as base, type NatsFixture, type PgFixture } from '@aigw/testkit';
import { type ControlPlaneApp, createApp } from '../src/app.js';
import { loadControlPlaneConfig } from '../src/config.js';

export const ADMIN_KEY = `aigw_test_admin_${'k'.repeat(32)}`;
/** The test master key (32 bytes, base64) sealing provider credentials. */
export const MASTER_KEY = Buffer.alloc(32, 7).toString('base64');
/** The SnapshotService token of test control planes (SNAPSHOT_SERVICE_TOKEN); readSnapshot sends it. */
export const SNAPSHOT_TOKEN = `snapshot_test_token_${'s'.repeat(32)}`;

export interface ApiResponse<T = any> {
  readonly status: number;
  readonly body: T;
  readonly headers: Headers;
}

export interface CallOptions {
  /** API key for x-service-api-key; defaults to the bootstrap admin key. null sends none. */
  readonly key?: string | null;
  readonly token?: string;
  readonly body?: unknown;
  /** Raw body text (sent as application/json) for malformed-input tests. */
  readonly raw?: string;
  readonly headers?: Record<string, string>;
}

export interface ControlPlaneFixture {
  readonly app: ControlPlaneApp;
  readonly base: string;
  readonly adminKey: string;
  /** The NATS namespace the app publishes under (streams `<ns>_AIGW_CHANGES`, `<ns>_AIGW_AUDIT`). */
  readonly namespace: string;
  call<T = any>(method: string, path: string, options?: CallOptions): Promise<ApiResponse<T>>;
}

export function startControlPlane(
  fixtures: { pg: PgFixture; nats: NatsFixture },
  env: Record<string, string> = {},
): { app: ControlPlaneApp; namespace: string } {
  const namespace = fixtures.nats.prefix;
  const app = createApp(
    loadControlPlaneConfig({
      PORT: '0',
      GRPC_PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      DATABASE_URL: fixtures.pg.url,
      NATS_URL: fixtures.nats.url,
      NATS_NAMESPACE: namespace,
      BOOTSTRAP_ADMIN_KEY: ADMIN_KEY,
      MASTER_KEY,
      SNAPSHOT_SERVICE_TOKEN: SNAPSHOT_TOKEN,
      OUTBOX_POLL_MS: '50',
      ...env,
    }),
  );
  return { app, namespace };
}

export function apiClient(base: string, defaultKey: string) {
  return async function call<T = any>(
    method: string,
    path: string,
    options: CallOptions = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    const key = options.key === undefined ? defaultKey : options.key;
    if (key !== null) headers['x-service-api-key'] = key;
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${base}/v1${path}`, { method: method.toUpperCase(), headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // not JSON: tests see the text
    }
    return { status: response.status, body: parsed as T, headers: response.headers };
  };
}

/** `test` with a file-scoped, bootstrapped control plane as `cp`. */
export const test = base.extend<{ cp: ControlPlaneFixture }>({
  cp: [
    async ({ pg, nats }, use) => {
      const { app, namespace } = startControlPlane({ pg, nats });
      await app.start();
      const base = `http://127.0.0.1:${app.ports.http}`;
      try {
        await use({ app, base, adminKey: ADMIN_KEY, namespace, call: apiClient(base, ADMIN_KEY) });
      } finally {
        await app.stop();
      }
    },
    { scope: 'file' },
  ],
});
