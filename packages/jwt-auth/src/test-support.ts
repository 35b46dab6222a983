// Test support for token authentication: a real JWKS HTTP server on 127.0.0.1 and token builders.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';

export interface TestKey {
  kid: string;
  alg: string;
  publicKey: CryptoKey;
  privateKey: CryptoKey;
  /** The public JWK as a key set publishes it (kid, alg, use). */
  jwk: JWK;
}

export async function makeKey(alg: 'RS256' | 'ES256', kid: string): Promise<TestKey> {
  const { publicKey, privateKey } = await generateKeyPair(alg);
  const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { kid, alg, publicKey, privateKey, jwk };
}

export type JwksMode = 'ok' | 'invalid' | 'error' | 'hang';

export interface JwksServer {
  url: string;
  /** How many key-set requests the server has answered (or left hanging). */
  readonly requests: number;
  /** Publish these keys from now on. */
  setKeys(keys: readonly JWK[]): void;
  /** `ok` serves the key set, `invalid` serves JSON that is not a key set, `error` answers 500, `hang` never answers. */
  setMode(mode: JwksMode): void;
  close(): Promise<void>;
}

export async function startJwksServer(keys: readonly JWK[]): Promise<JwksServer> {
  let published = keys;
  let mode: JwksMode = 'ok';
  let requests = 0;
  const server: Server = createServer((_req, res) => {
    requests += 1;
    if (mode === 'hang') return;
    if (mode === 'error') {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('key set unavailable');
      return;
    }
    const body = mode === 'invalid' ? { keys: 'none here' } : { keys: published };
    res.writeHead(200, { 'content-type': 'application/jwk-set+json' }).end(JSON.stringify(body));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    get requests() {
      return requests;
    },
    setKeys(next) {
      published = next;
    },
    setMode(next) {
      mode = next;
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** A URL on 127.0.0.1 where nothing listens (the port was just freed). */
export async function closedUrl(): Promise<string> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return `http://127.0.0.1:${port}/.well-known/jwks.json`;
}

export interface SignOptions {
  /** Header `kid`; defaults to the key's own, `null` leaves it out. */
  kid?: string | null;
  /** Header `alg`; defaults to the key's own. */
  alg?: string;
  /** More protected-header fields (an attacker's `jku`, `x5u`, `jwk`). */
  header?: Record<string, unknown>;
}

export function signToken(key: TestKey, claims: JWTPayload, options: SignOptions = {}): Promise<string> {
  const kid = options.kid === undefined ? key.kid : options.kid;
  const header = {
    ...options.header,
    alg: options.alg ?? key.alg,
    typ: 'JWT',
    ...(kid === null ? {} : { kid }),
  };
  return new SignJWT(claims).setProtectedHeader(header).sign(key.privateKey);
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An unsecured JWT (`alg: none`, empty signature), built by hand as an attacker would. */
export function unsignedToken(claims: JWTPayload): string {
  return `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(claims)}.`;
}

/** Header and claims signed with HMAC-SHA256 under an arbitrary secret (e.g. the public key bytes). */
export function hmacToken(secret: Uint8Array, claims: JWTPayload, kid: string): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid }).sign(secret);
}
