// A JWT issuer for whole-stack tests: a JWKS endpoint with one RS256 key and a signer for it
// (node:crypto, no extra dependency). Give the control plane JWT_JWKS_URL = url, JWT_ISSUER = ISSUER
// and JWT_AUDIENCE = AUDIENCE.
import { generateKeyPairSync, sign } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const ISSUER = 'https://issuer.e2e';
export const AUDIENCE = 'aigw-admin';

export async function startIssuer(): Promise<{
  url: string;
  sign(claims: object): string;
  close(): Promise<void>;
}> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'e2e', alg: 'RS256', use: 'sig' };
  const server: Server = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`,
    sign(claims) {
      const now = Math.floor(Date.now() / 1000);
      const input = `${b64({ alg: 'RS256', typ: 'JWT', kid: 'e2e' })}.${b64({ iss: ISSUER, aud: AUDIENCE, iat: now, exp: now + 600, ...claims })}`;
      return `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
