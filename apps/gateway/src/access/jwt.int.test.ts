// Token authentication on the data plane (spec 5.4): a JWT in x-service-api-key, verified against a
// real JWKS server, names the organisation and workspace of the snapshot; refusals are 401/403.
import { randomUUID } from 'node:crypto';
import {
  type JwksServer,
  makeKey,
  signToken,
  startJwksServer,
  type TestKey,
} from '@aigw/jwt-auth/test-support';
import { EntityStatus } from '@aigw/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ControlPlaneGateway,
  integration,
  organisation,
  provider,
  startControlPlaneGateway,
  workspace,
} from '../../test/control-plane-entities.js';

const ISSUER = 'https://idp.example.test/';
const AUDIENCE = 'aigw-gateway';
const ORG = randomUUID();
const WS = randomUUID();
const INT = randomUUID();
const PROVIDER = randomUUID();
const chat = { model: 'gpt-4o', messages: [{ role: 'user', content: 'ping' }] };

let jwks: JwksServer;
let key: TestKey;
let gw: ControlPlaneGateway;

beforeAll(async () => {
  key = await makeKey('RS256', 'gw-1');
  jwks = await startJwksServer([key.jwk]);
  gw = await startControlPlaneGateway([], {
    JWT_JWKS_URL: jwks.url,
    JWT_ISSUER: ISSUER,
    JWT_AUDIENCE: AUDIENCE,
  });
  gw.use([
    organisation(ORG),
    workspace(WS, ORG),
    integration(INT, ORG, {
      credentials: { api_key: 'sk-managed' },
      options: { custom_host: `${gw.mock.url}/v1` },
    }),
    provider(PROVIDER, ORG, WS, 'openai-prod', { integrationId: INT }),
  ]);
});

afterAll(async () => {
  await gw?.close();
  await jwks?.close();
});

function token(claims: Record<string, unknown> = {}, signer: TestKey = key): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return signToken(signer, {
    iss: ISSUER,
    aud: AUDIENCE,
    iat: now,
    exp: now + 300,
    sub: 'user-9',
    organisation_id: ORG,
    workspace_id: WS,
    role: 'member',
    scope: 'completions.write',
    ...claims,
  });
}

function call(credential: string, traceId: string = randomUUID()) {
  return fetch(`${gw.base}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-api-key': credential,
      'x-service-provider': '@openai-prod',
      'x-service-trace-id': traceId,
    },
    body: JSON.stringify(chat),
  });
}

async function code(res: Response): Promise<string> {
  return ((await res.json()) as { error: { code: string } }).error.code;
}

describe('JWT in x-service-api-key', () => {
  it('is accepted and recorded with the token subject and no API key id', async () => {
    gw.mock.clear();
    const res = await call(await token(), 'jwt-ok');
    expect(res.status).toBe(200);
    expect(gw.mock.requests[0]?.headers.authorization).toBe('Bearer sk-managed');
    const event = await gw.eventFor('jwt-ok');
    expect(event).toMatchObject({ organisationId: ORG, workspaceId: WS, userId: 'user-9', apiKeyId: '' });
  });

  it('refuses a token without the completions.write scope with 403, before reaching the provider', async () => {
    gw.mock.clear();
    const res = await call(await token({ scope: 'logs.list logs.view' }));
    expect(res.status).toBe(403);
    expect(res.headers.get('x-service-gateway-error')).toBe('true');
    expect(await code(res)).toBe('insufficient_scope');
    expect(gw.mock.requests).toHaveLength(0);
  });

  it('refuses forged, expired and foreign tokens with 401 and says why', async () => {
    const impostor = await makeKey('RS256', 'gw-1');
    const cases: Array<[string, RegExp]> = [
      [await token({}, impostor), /signature/],
      [await token({ exp: Math.floor(Date.now() / 1000) - 120 }), /expired/],
      [await token({ aud: 'someone-else' }), /not meant for this service/],
      [await token({ workspace_id: randomUUID() }), /does not exist/],
    ];
    for (const [credential, says] of cases) {
      const res = await call(credential);
      expect(res.status).toBe(401);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('invalid_token');
      expect(body.error.message).toMatch(says);
    }
  });

  it('needs a workspace, and its workspace must be active', async () => {
    const orgLevel = await call(await token({ role: 'admin', workspace_id: undefined }));
    expect([orgLevel.status, await code(orgLevel)]).toEqual([403, 'workspace_key_required']);
    gw.use([
      organisation(ORG),
      workspace(WS, ORG, { status: EntityStatus.ARCHIVED }),
      provider(PROVIDER, ORG, WS, 'openai-prod', { integrationId: INT }),
    ]);
    const archived = await call(await token());
    expect([archived.status, await code(archived)]).toEqual([403, 'workspace_archived']);
  });

  it('answers 503 with retry-after, not 401, while the identity provider cannot be reached', async () => {
    // SDKs take a 401 for a bad key and do not retry; an identity provider outage is neither.
    const gone = await startJwksServer([key.jwk]);
    await gone.close();
    const down = await startControlPlaneGateway([], {
      JWT_JWKS_URL: gone.url,
      JWT_ISSUER: ISSUER,
      JWT_AUDIENCE: AUDIENCE,
    });
    try {
      down.use([organisation(ORG), workspace(WS, ORG)]);
      const res = await fetch(`${down.base}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-api-key': await token() },
        body: JSON.stringify(chat),
      });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(await code(res)).toBe('identity_provider_unavailable');
    } finally {
      await down.close();
    }
  });
});
