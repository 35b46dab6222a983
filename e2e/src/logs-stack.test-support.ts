// The logs end-to-end stack, in-process: the real logger, control plane and a gateway on real
// Postgres and NATS, with the mock provider upstream. Requests made through the gateway become request
// events the logger stores; the control plane's /logs, /analytics, /feedback routes read them back.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ControlPlaneApp,
  createApp as createControlPlane,
  loadControlPlaneConfig,
} from '@aigw/control-plane';
import { createApp as createGateway, type GatewayApp, loadGatewayConfig } from '@aigw/gateway';
import { createApp as createLogger, type LoggerApp, loadLoggerConfig } from '@aigw/logger';
import { createMockProvider, type MockProvider } from '@aigw/mock-provider';
import { test as base, type NatsFixture, type PgFixture, waitReady } from '@aigw/testkit';
import { AdminClient, pollUntil, type Reply } from './enforcement-client.test-support.js';
import { createTenant, PROVIDER_SECRET, type Tenant } from './enforcement-stack.test-support.js';

export interface LogsStack {
  readonly admin: AdminClient;
  readonly logger: LoggerApp;
  readonly controlPlane: ControlPlaneApp;
  readonly controlPlaneBase: string;
  readonly gatewayBase: string;
  readonly mock: MockProvider;
  readonly env: Readonly<Record<string, string>>;
  close(): Promise<void>;
}

/**
 * `gatewayEnv`: extra gateway settings (REDIS_URL for limits on a real Redis); `controlPlaneEnv`:
 * extra control-plane settings (SMTP_URL for alert e-mail); `loggerEnv`: extra logger settings
 * (REDIS_URL for the usage reconciliation).
 */
export async function startLogsStack(
  fixtures: { pg: PgFixture; nats: NatsFixture },
  gatewayEnv: Readonly<Record<string, string>> = {},
  controlPlaneEnv: Readonly<Record<string, string>> = {},
  loggerEnv: Readonly<Record<string, string>> = {},
): Promise<LogsStack> {
  const { pg, nats } = fixtures;
  const masterKey = randomBytes(32).toString('base64');
  const adminKey = `aigw_e2e_${randomBytes(24).toString('base64url')}`;
  const snapshotToken = randomBytes(32).toString('base64url');
  const logsToken = randomBytes(32).toString('base64url');
  const mock = await createMockProvider({ apiKeys: { openai: [PROVIDER_SECRET] }, maxRecorded: 0 });
  const common = {
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    NATS_URL: nats.url,
    NATS_NAMESPACE: nats.prefix,
  };
  const logger = createLogger(
    loadLoggerConfig({
      ...common,
      GRPC_PORT: '0',
      DATABASE_URL: pg.url,
      EXPORT_POLL_MS: '200',
      LOGS_SERVICE_TOKEN: logsToken,
      ...loggerEnv,
    }),
  );
  await logger.start();
  const env = {
    ...common,
    GRPC_PORT: '0',
    DATABASE_URL: pg.url,
    MASTER_KEY: masterKey,
    BOOTSTRAP_ADMIN_KEY: adminKey,
    LOGGER_GRPC_URL: `127.0.0.1:${logger.ports.grpc}`,
    LOGGER_SERVICE_TOKEN: logsToken,
    SNAPSHOT_SERVICE_TOKEN: snapshotToken,
    ...controlPlaneEnv,
  };
  const controlPlane = createControlPlane(loadControlPlaneConfig(env));
  await controlPlane.start();
  const controlPlaneBase = `http://127.0.0.1:${controlPlane.ports.http}`;
  const gateway: GatewayApp = createGateway(
    loadGatewayConfig({
      ...common,
      CONTROL_PLANE_GRPC_URL: `127.0.0.1:${controlPlane.ports.grpc}`,
      SNAPSHOT_SERVICE_TOKEN: snapshotToken,
      MASTER_KEY: masterKey,
      SNAPSHOT_LKG_PATH: join(mkdtempSync(join(tmpdir(), 'aigw-logs-e2e-lkg-')), 'snapshot.bin'),
      CUSTOM_HOST_ALLOWLIST: '127.0.0.1',
      REQUEST_EVENTS_SUBJECT: `${nats.prefix}.aigw.requests.v1`,
      EVENT_SPOOL_DIR: mkdtempSync(join(tmpdir(), 'aigw-logs-e2e-spool-')),
      // These stacks test limits against a healthy Redis: on a loaded test machine one Redis answer
      // can take longer than the production deadline (100 ms), and the decision would then be the
      // local fallback's (seen once: a budget test admitting after its 412). The fallback has its
      // own tests (limits/redis-down, budget-reconcile), which set the deadline they need.
      LIMITS_REDIS_TIMEOUT_MS: '2000',
      ...gatewayEnv,
    }),
  );
  await gateway.start();
  // Ready once it holds the control plane's snapshot: before that it answers 503 to every call.
  await waitReady(`http://127.0.0.1:${gateway.port}`);
  return {
    admin: new AdminClient(() => controlPlaneBase, adminKey),
    logger,
    controlPlane,
    controlPlaneBase,
    gatewayBase: `http://127.0.0.1:${gateway.port}`,
    mock,
    env,
    async close() {
      await gateway.stop();
      await controlPlane.stop();
      await logger.stop();
      await mock.close();
    },
  };
}

/** An admin API call with another key. */
export async function callAs(
  stack: LogsStack,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<Reply> {
  const res = await fetch(`${stack.controlPlaneBase}/v1${path}`, {
    method,
    headers: {
      'x-service-api-key': key,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    // a download: kept as text
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

/** One chat completion through the gateway with a trace id; retried until the key has synced. */
export async function chatUntilServed(
  stack: LogsStack,
  tenant: Tenant,
  key: string,
  traceId: string,
): Promise<void> {
  await pollUntil(
    async () =>
      (
        await fetch(`${stack.gatewayBase}/v1/chat/completions`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-service-api-key': key,
            'x-service-provider': tenant.provider,
            'x-service-trace-id': traceId,
          },
          body: JSON.stringify({
            model: 'gpt-4o-mini',
            messages: [{ role: 'user', content: 'hi' }],
            max_tokens: 3,
          }),
          signal: AbortSignal.timeout(10_000),
        })
      ).status,
    (status) => status === 200,
    { boundMs: 15_000, intervalMs: 25, what: `gateway serving key for ${traceId}` },
  );
}

export { createTenant, pollUntil };

/** `test` with one file-scoped logs stack as `stack` (stopped before the file's database goes). */
export const logsTest = base.extend<{ stack: LogsStack }>({
  stack: [
    async ({ pg, nats }, use) => {
      const stack = await startLogsStack({ pg, nats });
      try {
        await use(stack);
      } finally {
        await stack.close();
      }
    },
    { scope: 'file' },
  ],
});
