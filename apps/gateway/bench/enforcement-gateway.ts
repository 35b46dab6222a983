// The "enforcement" bench target: a gateway in control-plane mode (key auth, a managed provider, one
// requests rate-limit policy, one cost usage limit, events to NATS) over a local redis-server. There is
// no control plane: the snapshot is written as a last-known-good file and CONTROL_PLANE_GRPC_URL points
// at a closed port, so the gateway cold-starts from the file as it would during a control-plane outage.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RateLimitType, RateLimitUnit, UsageLimitType } from '@aigw/proto';
import { freePort, startLocalRedis } from '@aigw/testkit/services';
import { gpt4oPrice, ratePolicy, usagePolicy } from '../src/limits/limits.test-support.js';
import { Snapshot, writeLastKnownGood } from '../src/snapshot/index.js';
import {
  apiKey,
  integration,
  organisation,
  provider,
  TEST_MASTER_KEY,
  workspace,
} from '../test/control-plane-entities.js';
import { GATEWAY_NODE_FLAGS, start, waitHttp } from './harness.js';
import { pinProxy } from './pinning.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const tsx = ['--conditions=@aigw/source', '--import', 'tsx'];
/** Never reached in a bench run: the policies must be paid for on every request, never refuse. */
const NEVER = 1_000_000_000_000;

export interface EnforcementGateway {
  readonly url: string;
  readonly pid: number | undefined;
  readonly redisPid: number | undefined;
  /** Headers of every request: the API key and the managed provider (spec 5.1 "virtual key" form). */
  readonly headers: Record<string, string>;
  stop(): Promise<void>;
}

/** A refused request would make the figures meaningless: one must pass and carry the policy's headers. */
async function probe(url: string, headers: Record<string, string>): Promise<void> {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'ping' }] }),
  });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`enforcement probe: ${res.status} ${body}`);
  if (res.headers.get('x-ratelimit-limit-requests') !== String(NEVER))
    throw new Error('enforcement probe: the requests policy did not apply (no x-ratelimit-limit-requests)');
}

export async function startEnforcementGateway(options: {
  mockUrl: string;
  natsUrl: string;
  nodeArgs?: string[];
  /** Another gateway entry (a copy of an earlier src/ for an A/B, or a compiled main.js, run without tsx); default src/main.ts. */
  entry?: string;
}): Promise<EnforcementGateway> {
  const redis = await startLocalRedis();
  const dir = await mkdtemp(join(tmpdir(), 'aigw-bench-enforcement-'));
  const org = randomUUID();
  const ws = randomUUID();
  const int = randomUUID();
  const key = `aigw_${randomUUID().replaceAll('-', '')}`;
  const entities = [
    organisation(org),
    workspace(ws, org),
    apiKey(key, org, ws),
    integration(int, org, {
      credentials: { api_key: 'sk-managed' },
      options: { custom_host: `${options.mockUrl}/v1` },
    }),
    provider(randomUUID(), org, ws, 'openai-bench', { integrationId: int }),
    { ...gpt4oPrice() },
    {
      ...ratePolicy({
        type: RateLimitType.REQUESTS,
        unit: RateLimitUnit.RPM,
        value: NEVER,
        conditions: [{ key: 'workspace_id', value: ws }],
        groupBy: [{ key: 'api_key' }],
      }),
      organisationId: org,
    },
    {
      ...usagePolicy({
        type: UsageLimitType.COST,
        creditLimit: NEVER,
        conditions: [{ key: 'workspace_id', value: ws }],
        groupBy: [{ key: 'api_key' }],
      }),
      organisationId: org,
    },
  ];
  const lkgPath = join(dir, 'snapshot-v1.lkg');
  await writeLastKnownGood(lkgPath, Snapshot.of(entities, 1), Date.now());
  const port = await freePort();
  const closedPort = await freePort();
  const child = await start(
    'enforcement gateway',
    options.entry?.endsWith('.js')
      ? [...GATEWAY_NODE_FLAGS, ...(options.nodeArgs ?? []), options.entry]
      : [
          ...tsx,
          ...GATEWAY_NODE_FLAGS,
          ...(options.nodeArgs ?? []),
          options.entry ?? `${root}apps/gateway/src/main.ts`,
        ],
    {
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      NATS_URL: options.natsUrl,
      REDIS_URL: redis.url,
      CONTROL_PLANE_GRPC_URL: `127.0.0.1:${closedPort}`,
      // Nothing listens there (the snapshot comes from the last-known-good file), but the setting is required.
      SNAPSHOT_SERVICE_TOKEN: randomBytes(32).toString('base64'),
      SNAPSHOT_GRPC_DEADLINE_MS: '1000',
      SNAPSHOT_LKG_PATH: lkgPath,
      MASTER_KEY: TEST_MASTER_KEY,
      CUSTOM_HOST_ALLOWLIST: '127.0.0.1',
      EVENT_SPOOL_DIR: join(dir, 'spool'),
    },
  );
  const url = `http://127.0.0.1:${port}`;
  const headers = { 'x-service-api-key': key, 'x-service-provider': '@openai-bench' };
  try {
    await waitHttp(`${url}/readyz`);
    await probe(url, headers);
    pinProxy(child.pid, 'the enforcement gateway');
  } catch (err) {
    child.kill('SIGTERM');
    await redis.stop();
    throw err;
  }
  return {
    url,
    pid: child.pid,
    redisPid: redis.pid,
    headers,
    async stop() {
      if (child.exitCode === null) {
        child.removeAllListeners('exit');
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await redis.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
