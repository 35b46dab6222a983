// What control-plane mode adds before a request is sent: the key's hash and lookup alone, and the
// whole access resolution (key, tenant, `@slug` provider with its opened credentials, metadata) over
// a snapshot of 10 000 keys.
import { randomUUID } from 'node:crypto';
import { createLogger } from '@aigw/runtime';
import { bench, describe } from 'vitest';
import {
  apiKey,
  integration,
  organisation,
  provider,
  TEST_MASTER_KEY,
  workspace,
} from '../../test/control-plane-entities.js';
import { parseServiceHeaders } from '../request/service-headers.js';
import { Snapshot } from '../snapshot/index.js';
import { hashApiKey } from './authenticate.js';
import type { Identity } from './identity.js';
import { createRequestAccess } from './request-access.js';

const ORG = randomUUID();
const WS = randomUUID();
const INT = randomUUID();
const keys = Array.from({ length: 10_000 }, (_, i) => `aigw_bench-key-${i}-${'x'.repeat(40)}`);
const snapshot = Snapshot.of(
  [
    organisation(ORG, { defaultMetadata: { env: 'prod' } }),
    workspace(WS, ORG),
    integration(INT, ORG, { credentials: { api_key: 'sk-managed' } }),
    provider(randomUUID(), ORG, WS, 'openai-prod', { integrationId: INT }),
    ...keys.map((key) => apiKey(key, ORG, WS)),
  ],
  1,
);
const resolve = createRequestAccess({
  snapshots: { current: () => snapshot },
  jwt: null,
  masterKey: TEST_MASTER_KEY,
  log: createLogger({ app: 'bench', level: 'silent' }),
});
const headers = {
  'x-service-api-key': keys[4242] as string,
  'x-service-provider': '@openai-prod',
  'x-service-metadata': '{"team":"a"}',
};
const service = parseServiceHeaders(headers);

describe('control-plane access per request', () => {
  bench('SHA-256 of the key + snapshot lookup', () => {
    snapshot.apiKeyByHash(hashApiKey(headers['x-service-api-key']));
  });

  bench('key + @slug provider (credentials cached) + metadata', () => {
    const current = resolve.current();
    resolve.resolve(current, resolve.identify(current, headers) as Identity, headers, service);
  });
});
