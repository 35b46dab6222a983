// Spec 5.1: the accepted credential combinations and the 400s for every other one.
import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { isGatewayError } from '../errors.js';
import { parseServiceHeaders } from '../request/service-headers.js';
import { credentialRoute } from './credential-route.js';

const route = (headers: IncomingHttpHeaders, defaultConfig = '') =>
  credentialRoute(headers, parseServiceHeaders(headers), defaultConfig);

function refusal(
  headers: IncomingHttpHeaders,
  defaultConfig = '',
): { code: string | null; param: string | null } {
  try {
    route(headers, defaultConfig);
  } catch (err) {
    if (isGatewayError(err)) return { code: err.code, param: err.param };
    throw err;
  }
  throw new Error('accepted');
}

describe('credentialRoute', () => {
  it('accepts the four combinations (and @slug, the virtual key replacement)', () => {
    expect(route({ 'x-service-virtual-key': 'vk' })).toEqual({ kind: 'virtual_key', slug: 'vk' });
    expect(route({ 'x-service-provider': 'openai', authorization: 'Bearer sk' })).toEqual({
      kind: 'headers',
    });
    expect(route({ 'x-service-config': 'cfg' })).toEqual({
      kind: 'config',
      value: 'cfg',
      fromKeyDefault: false,
    });
    expect(
      route({
        'x-service-provider': 'openai',
        authorization: 'Bearer sk',
        'x-service-custom-host': 'https://h',
      }),
    ).toEqual({ kind: 'headers' });
    expect(route({ 'x-service-provider': '@prod' })).toEqual({ kind: 'managed', slug: 'prod' });
  });

  it('counts provider-native keys and Bedrock key pairs as provider authorization, and needs none for local servers', () => {
    expect(route({ 'x-service-provider': 'anthropic', 'x-api-key': 'k' }).kind).toBe('headers');
    // Google's SDKs send their key as x-goog-api-key.
    expect(route({ 'x-service-provider': 'google', 'x-goog-api-key': 'k' }).kind).toBe('headers');
    expect(refusal({ 'x-service-provider': 'google' })).toMatchObject({ code: 'missing_provider_auth' });
    expect(
      route({
        'x-service-provider': 'aws-bedrock',
        'x-service-cloudc-access-key-id': 'AKIA',
        'x-service-cloudc-secret-access-key': 's',
      }).kind,
    ).toBe('headers');
    expect(route({ 'x-service-provider': 'ollama' }).kind).toBe('headers');
    expect(route({ 'x-service-custom-host': 'https://h' }).kind).toBe('headers');
  });

  it("falls back to the key's default config only when the request names nothing", () => {
    expect(route({}, 'cfg-1')).toEqual({ kind: 'config', value: 'cfg-1', fromKeyDefault: true });
    expect(route({ 'x-service-provider': '@prod' }, 'cfg-1').kind).toBe('managed');
  });

  it('names what is missing or conflicting', () => {
    expect(refusal({})).toEqual({ code: 'missing_provider', param: 'x-service-provider' });
    expect(refusal({ 'x-service-provider': 'openai' })).toEqual({
      code: 'missing_provider_auth',
      param: 'authorization',
    });
    expect(refusal({ 'x-service-virtual-key': 'vk', 'x-service-provider': '@p' })).toMatchObject({
      code: 'conflicting_credentials',
    });
    expect(refusal({ 'x-service-virtual-key': 'vk', 'x-service-custom-host': 'https://h' })).toEqual({
      code: 'conflicting_credentials',
      param: 'x-service-custom-host',
    });
  });
});
