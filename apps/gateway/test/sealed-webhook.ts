// The shared fixture of the sealed-webhook-headers tests (saved guardrails, saved configs): a local
// webhook that passes only when called with the original Authorization, and two control-plane-mode
// gateways over the same tenant (one with MASTER_KEY, one without), both managed provider
// `@openai-prod` on their own mock.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Entity } from '@aigw/proto';
import { parseMasterKey } from '@aigw/secret-box';
import {
  type ControlPlaneGateway,
  managedTenant,
  startControlPlaneGateway,
  TEST_MASTER_KEY,
} from './control-plane-entities.js';

export interface SealedWebhookFixture {
  readonly org: string;
  readonly ws: string;
  /** The service key of every request. */
  readonly key: string;
  /** The webhook's secret header value, sealed in the entities under test. */
  readonly secret: string;
  /** A master key other than the gateways': envelopes sealed with it never open. */
  readonly otherKey: Buffer;
  /** The webhook's URL, for the checks of the entities under test. */
  readonly hookUrl: string;
  /** Headers of every call the webhook received. */
  readonly calls: IncomingHttpHeaders[];
  /** The gateway with MASTER_KEY, and one without. */
  readonly gw: ControlPlaneGateway;
  readonly keyless: ControlPlaneGateway;
  close(): Promise<void>;
}

/**
 * Starts the webhook and both gateways; `entities` gives, per gateway, the entities under test
 * (sealed with `masterKey`, the gateways' own, or with `otherKey`), added to the common tenant.
 */
export interface SealingContext {
  readonly org: string;
  readonly ws: string;
  readonly secret: string;
  readonly hookUrl: string;
  /** The gateways' MASTER_KEY. */
  readonly masterKey: Buffer;
  readonly otherKey: Buffer;
}

export async function startSealedWebhookFixture(
  entities: (context: SealingContext) => Entity[],
): Promise<SealedWebhookFixture> {
  const org = randomUUID();
  const ws = randomUUID();
  const key = `aigw_${randomUUID()}`;
  const secret = `Bearer whsec-${randomUUID()}`;
  const otherKey = Buffer.alloc(32, 9);
  const calls: IncomingHttpHeaders[] = [];
  const hook = createServer((req, res) => {
    calls.push(req.headers);
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ verdict: req.headers.authorization === secret }));
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  const hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/guard`;
  const masterKey = parseMasterKey(TEST_MASTER_KEY);
  const gw = await startControlPlaneGateway([], {}, { apiKeys: { openai: ['sk-managed'] } });
  const keyless = await startControlPlaneGateway(
    [],
    { MASTER_KEY: '' },
    { apiKeys: { openai: ['sk-managed'] } },
  );
  for (const target of [gw, keyless]) {
    target.use([
      ...managedTenant(target, { org, ws, key }),
      ...entities({ org, ws, secret, hookUrl, masterKey, otherKey }),
    ]);
  }
  return {
    org,
    ws,
    key,
    secret,
    otherKey,
    hookUrl,
    calls,
    gw,
    keyless,
    async close() {
      await gw.close();
      await keyless.close();
      await new Promise((resolve) => hook.close(resolve));
    },
  };
}
