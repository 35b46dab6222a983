// The prompts end-to-end stack: the logs stack (logger, control plane, one gateway on real Postgres
// and NATS), a second gateway replica on the same control plane, and a mock provider that records
// what reaches it (the tenant's integration points at it), so tests read the rendered messages.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp as createGateway, type GatewayApp, loadGatewayConfig } from '@aigw/gateway';
import { createMockProvider, type MockProvider } from '@aigw/mock-provider';
import { test as base, waitReady } from '@aigw/testkit';
import { PROVIDER_SECRET, type Tenant } from './enforcement-stack.test-support.js';
import { createTenant, type LogsStack, startLogsStack } from './logs-stack.test-support.js';

export interface PromptsWorld {
  readonly stack: LogsStack;
  /** Records every request (the logs stack's own mock records none). */
  readonly mock: MockProvider;
  readonly tenant: Tenant;
  /** Base URLs of both gateway replicas. */
  readonly gateways: readonly [string, string];
}

async function secondGateway(stack: LogsStack, natsPrefix: string): Promise<GatewayApp> {
  const env = stack.env;
  const gateway = createGateway(
    loadGatewayConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      INSTANCE_ID: 'prompts-e2e-gateway-1',
      NATS_URL: env.NATS_URL as string,
      NATS_NAMESPACE: natsPrefix,
      CONTROL_PLANE_GRPC_URL: `127.0.0.1:${stack.controlPlane.ports.grpc}`,
      SNAPSHOT_SERVICE_TOKEN: env.SNAPSHOT_SERVICE_TOKEN as string,
      MASTER_KEY: env.MASTER_KEY as string,
      SNAPSHOT_LKG_PATH: join(mkdtempSync(join(tmpdir(), 'aigw-prompts-e2e-lkg-')), 'snapshot.bin'),
      CUSTOM_HOST_ALLOWLIST: '127.0.0.1',
      REQUEST_EVENTS_SUBJECT: `${natsPrefix}.aigw.requests.v1`,
      EVENT_SPOOL_DIR: mkdtempSync(join(tmpdir(), 'aigw-prompts-e2e-spool-')),
    }),
  );
  await gateway.start();
  await waitReady(`http://127.0.0.1:${gateway.port}`);
  return gateway;
}

/** `test` with one file-scoped stack as `world` (stopped before the file's database goes). */
export const test = base.extend<{ world: PromptsWorld }>({
  world: [
    async ({ pg, nats }, use) => {
      const stack = await startLogsStack({ pg, nats });
      const mock = await createMockProvider({ apiKeys: { openai: [PROVIDER_SECRET] } });
      const second = await secondGateway(stack, nats.prefix);
      try {
        await use({
          stack,
          mock,
          tenant: await createTenant(stack.admin, mock, 'Prompts e2e'),
          gateways: [stack.gatewayBase, `http://127.0.0.1:${second.port}`],
        });
      } finally {
        await second.stop();
        await stack.close();
        await mock.close();
      }
    },
    { scope: 'file' },
  ],
});
