import { Metadata } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, loadConfig, port } from './config.js';
import {
  bearerTokenCheck,
  grpcHost,
  requireServiceToken,
  SERVICE_AUTH_DISABLED,
  serviceAuth,
  serviceToken,
} from './service-token.js';

const TOKEN = 'a-service-token-of-32-characters';

const server = z
  .object({ PORT: port(1), GRPC_HOST: grpcHost, SVC_TOKEN: serviceToken, SVC_AUTH: serviceAuth })
  .check(requireServiceToken({ token: 'SVC_TOKEN', off: 'SVC_AUTH', why: 'callers present it' }));
const noSwitch = z
  .object({ SVC_TOKEN: serviceToken })
  .check(requireServiceToken({ token: 'SVC_TOKEN', why: 'callers present it' }));
const client = z
  .object({ SVC_URL: z.string().optional(), SVC_TOKEN: serviceToken, SVC_AUTH: serviceAuth })
  .check(
    requireServiceToken({
      token: 'SVC_TOKEN',
      off: 'SVC_AUTH',
      neededWith: 'SVC_URL',
      why: 'the server asks',
    }),
  );

function problems(load: () => unknown): string[] {
  try {
    load();
  } catch (err) {
    if (err instanceof ConfigError) return [...err.problems];
    throw err;
  }
  throw new Error('the settings were accepted');
}

describe('service token settings', () => {
  it('bind gRPC to loopback and accept a token', () => {
    expect(loadConfig(server, { SVC_TOKEN: TOKEN })).toEqual({
      PORT: 1,
      GRPC_HOST: '127.0.0.1',
      SVC_TOKEN: TOKEN,
      SVC_AUTH: 'token',
    });
  });

  it('refuse to start without a token, naming it and the switch in words, together with other bad settings', () => {
    const found = problems(() => loadConfig(server, { PORT: 'x' }));
    expect(found.map((p) => p.split(':')[0]).sort()).toEqual(['PORT', 'SVC_TOKEN']);
    expect(found.find((p) => p.startsWith('SVC_TOKEN'))).toContain(`SVC_AUTH=${SERVICE_AUTH_DISABLED}`);
  });

  it('run open only when the switch says so in words, and never with a token as well', () => {
    expect(loadConfig(server, { SVC_AUTH: SERVICE_AUTH_DISABLED }).SVC_TOKEN).toBeUndefined();
    expect(problems(() => loadConfig(server, { SVC_AUTH: 'off' }))[0]).toMatch(/^SVC_AUTH:/);
    expect(problems(() => loadConfig(server, { SVC_AUTH: SERVICE_AUTH_DISABLED, SVC_TOKEN: TOKEN }))).toEqual(
      [
        `SVC_AUTH: is ${SERVICE_AUTH_DISABLED} while SVC_TOKEN is set: keep one of the two (got "${SERVICE_AUTH_DISABLED}")`,
      ],
    );
  });

  it('refuse a short token without echoing it', () => {
    const found = problems(() => loadConfig(server, { SVC_TOKEN: 'short-token-0123' }));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^SVC_TOKEN: .*at least 32/);
    expect(found[0]).not.toContain('short-token-0123');
  });

  it('offer no switch where the service has none', () => {
    const found = problems(() => loadConfig(noSwitch, {}));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^SVC_TOKEN: required /);
    expect(found[0]).not.toContain(SERVICE_AUTH_DISABLED);
  });

  it('need the token on the client side only when the service address is set', () => {
    expect(loadConfig(client, {}).SVC_TOKEN).toBeUndefined();
    expect(problems(() => loadConfig(client, { SVC_URL: 'cp:1' }))[0]).toMatch(
      /^SVC_TOKEN: required with SVC_URL/,
    );
    expect(loadConfig(client, { SVC_URL: 'cp:1', SVC_AUTH: SERVICE_AUTH_DISABLED }).SVC_AUTH).toBe(
      SERVICE_AUTH_DISABLED,
    );
  });
});

describe('bearerTokenCheck', () => {
  const check = bearerTokenCheck(TOKEN);
  const metadata = (...values: string[]) => {
    const m = new Metadata();
    for (const v of values) m.add('authorization', v);
    return m;
  };

  it('accepts exactly one bearer header with the token', () => {
    expect(check(metadata(`Bearer ${TOKEN}`))).toBe(true);
  });

  it('refuses no header, a wrong, longer, shorter or unprefixed token, and two headers', () => {
    expect(check(metadata())).toBe(false);
    expect(check(metadata('Bearer wrong-token-wrong-token-wrong-token'))).toBe(false);
    expect(check(metadata(`Bearer ${TOKEN}x`))).toBe(false);
    expect(check(metadata(`Bearer ${TOKEN.slice(1)}`))).toBe(false);
    expect(check(metadata(TOKEN))).toBe(false);
    expect(check(metadata(`Bearer ${TOKEN}`, `Bearer ${TOKEN}`))).toBe(false);
  });
});
