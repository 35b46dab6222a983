// The enforcement end-to-end stack, in-process: the real control plane and two gateway replicas on
// real Postgres, NATS and a Redis of its own (so a test may kill it), with the mock provider as the
// upstream. Every piece can be stopped and started again on the same ports and files.
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
import { createMockProvider, type MockProvider } from '@aigw/mock-provider';
import { test as base, type NatsFixture, type PgFixture, waitReady } from '@aigw/testkit';
import { freePort, type LocalServiceHandle, startLocalRedis } from '@aigw/testkit/services';
import { AdminClient } from './enforcement-client.test-support.js';

/** The key the mock accepts: a request reaching it with this key proves the gateway decrypted it. */
export const PROVIDER_SECRET = `sk-e2e-${randomBytes(12).toString('hex')}`;
/** The gateway's Redis command timeout in these tests (LIMITS_REDIS_TIMEOUT_MS). */
export const REDIS_TIMEOUT_MS = 300;

export interface EnforcementStack {
  readonly admin: AdminClient;
  readonly mock: MockProvider;
  /** `http://127.0.0.1:<port>` of each gateway replica (changes when one restarts). */
  gatewayBase(index: 0 | 1): string;
  readonly gateways: readonly [GatewayApp, GatewayApp];
  stopControlPlane(): Promise<void>;
  startControlPlane(): Promise<void>;
  /** Stops replica `index` and starts a new process-equivalent with the same settings and files. */
  restartGateway(index: 0 | 1): Promise<void>;
  /** SIGSTOPs the gateways' Redis: connections stay open and nothing answers (a hung server). */
  freezeRedis(): void;
  /** SIGKILLs the gateways' Redis (no goodbye on the sockets). */
  killRedis(): Promise<void>;
  close(): Promise<void>;
}

export async function startEnforcementStack(fixtures: {
  pg: PgFixture;
  nats: NatsFixture;
}): Promise<EnforcementStack> {
  const { pg, nats } = fixtures;
  const masterKey = randomBytes(32).toString('base64');
  const adminKey = `aigw_e2e_${randomBytes(24).toString('base64url')}`;
  const snapshotToken = randomBytes(32).toString('base64url');
  const grpcPort = await freePort();
  const redis: LocalServiceHandle = await startLocalRedis();
  const mock = await createMockProvider({ apiKeys: { openai: [PROVIDER_SECRET] }, maxRecorded: 0 });
  const eventsSubject = nats.subject('requests');
  await nats.jsm.streams.add({ name: nats.stream('REQUESTS'), subjects: [eventsSubject] });

  const controlPlaneEnv = {
    PORT: '0',
    GRPC_PORT: String(grpcPort),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DATABASE_URL: pg.url,
    NATS_URL: nats.url,
    NATS_NAMESPACE: nats.prefix,
    MASTER_KEY: masterKey,
    BOOTSTRAP_ADMIN_KEY: adminKey,
    SNAPSHOT_SERVICE_TOKEN: snapshotToken,
  };
  let controlPlane: ControlPlaneApp | undefined;
  let controlPlaneBase = '';
  const startControlPlane = async () => {
    const app = createControlPlane(loadControlPlaneConfig(controlPlaneEnv));
    await app.start();
    controlPlane = app;
    controlPlaneBase = `http://127.0.0.1:${app.ports.http}`;
  };
  await startControlPlane();

  const gatewayEnv = (index: number) => ({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    INSTANCE_ID: `e2e-gateway-${index}`,
    REDIS_URL: redis.url,
    LIMITS_REDIS_TIMEOUT_MS: String(REDIS_TIMEOUT_MS),
    NATS_URL: nats.url,
    NATS_NAMESPACE: nats.prefix,
    CONTROL_PLANE_GRPC_URL: `127.0.0.1:${grpcPort}`,
    SNAPSHOT_SERVICE_TOKEN: snapshotToken,
    MASTER_KEY: masterKey,
    SNAPSHOT_LKG_PATH: join(mkdtempSync(join(tmpdir(), `aigw-e2e-lkg-${index}-`)), 'snapshot.bin'),
    CUSTOM_HOST_ALLOWLIST: '127.0.0.1',
    REQUEST_EVENTS_SUBJECT: eventsSubject,
    EVENT_SPOOL_DIR: mkdtempSync(join(tmpdir(), `aigw-e2e-spool-${index}-`)),
  });
  const envs = [gatewayEnv(0), gatewayEnv(1)] as const;
  const startGateway = async (index: 0 | 1) => {
    const app = createGateway(loadGatewayConfig(envs[index]));
    await app.start();
    await waitReady(`http://127.0.0.1:${app.port}`);
    return app;
  };
  const gateways: [GatewayApp, GatewayApp] = [await startGateway(0), await startGateway(1)];

  return {
    admin: new AdminClient(() => controlPlaneBase, adminKey),
    mock,
    gateways,
    gatewayBase: (index) => `http://127.0.0.1:${gateways[index].port}`,
    async stopControlPlane() {
      await controlPlane?.stop();
      controlPlane = undefined;
    },
    startControlPlane,
    async restartGateway(index) {
      await gateways[index].stop();
      gateways[index] = await startGateway(index);
    },
    freezeRedis() {
      process.kill(redis.pid, 'SIGSTOP');
    },
    async killRedis() {
      process.kill(redis.pid, 'SIGKILL');
      await redis.stop();
    },
    async close() {
      await Promise.allSettled(gateways.map((g) => g.stop()));
      await controlPlane?.stop();
      await mock.close();
      try {
        process.kill(redis.pid, 'SIGCONT'); // a frozen Redis could not stop on SIGTERM
      } catch {
        // already gone
      }
      await redis.stop();
    },
  };
}

export interface Tenant {
  readonly workspaceId: string;
  readonly integrationId: string;
  /** `@<slug>` of the workspace's provider made from the integration. */
  readonly provider: string;
}

/** A workspace with an OpenAI integration pointing at the mock (its default provider included). */
export async function createTenant(admin: AdminClient, mock: MockProvider, name: string): Promise<Tenant> {
  const workspace = await admin.post('/workspaces', { name });
  const integration = await admin.post('/integrations', {
    name: `${name} mock`,
    ai_provider: 'openai',
    credentials: { api_key: PROVIDER_SECRET },
    options: { custom_host: `${mock.url}/v1` },
    workspaces: [{ id: workspace.id }],
  });
  return {
    workspaceId: workspace.id,
    integrationId: integration.id,
    provider: `@${integration.slug}`,
  };
}

export interface E2e {
  readonly stack: EnforcementStack;
  readonly tenant: Tenant;
}

/** `test` with one file-scoped stack and tenant as `e2e` (stopped before the file's database goes). */
export const test = base.extend<{ e2e: E2e }>({
  e2e: [
    async ({ pg, nats }, use) => {
      const stack = await startEnforcementStack({ pg, nats });
      try {
        await use({ stack, tenant: await createTenant(stack.admin, stack.mock, 'Enforcement') });
      } finally {
        await stack.close();
      }
    },
    { scope: 'file' },
  ],
});
