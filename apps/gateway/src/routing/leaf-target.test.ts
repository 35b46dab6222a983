import type { EffectiveSettings } from '@aigw/config-schema';
import { AppError } from '@aigw/runtime';
import { describe, expect, it } from 'vitest';
import { cloudOptions, type HeaderProvider, leafTarget } from './leaf-target.js';

const headers: HeaderProvider = {
  provider: 'openai',
  token: 'sk-header',
  customHost: 'http://127.0.0.1:9/v1',
  cloud: { azure: { resourceName: 'from-header', apiVersion: '2024-10-21' }, anthropicVersion: '2023-01-01' },
  forwardHeaders: ['x-a'],
  requestTimeoutMs: 5000,
};

describe('leafTarget', () => {
  it('takes the provider, token and custom host of the headers when the leaf names no provider', () => {
    const t = leafTarget({ request_timeout: 100 }, headers);
    expect(t.provider.id).toBe('openai');
    expect(t.token).toBe('sk-header');
    expect(t.customHost).toBe('http://127.0.0.1:9/v1');
    expect(t.timeoutMs).toBe(100);
  });

  it('uses the config credential as the bearer token, over the header', () => {
    const t = leafTarget({ provider: 'openai', api_key: 'sk-config' }, headers);
    expect(t.token).toBe('sk-config');
    expect(t.customHost).toBe('http://127.0.0.1:9/v1');
    expect(t.timeoutMs).toBe(5000);
  });

  it('never sends the header credential, custom host or options to another provider', () => {
    const t = leafTarget({ provider: 'anthropic' }, headers);
    expect(t.provider.id).toBe('anthropic');
    expect(t.token).toBeUndefined();
    expect(t.customHost).toBeUndefined();
    expect(t.cloud).toEqual({});
  });

  it('adds forward_headers to the header list and sets OpenAI project headers', () => {
    const t = leafTarget(
      { provider: 'openai', forward_headers: ['x-b', 'x-a'], openai_project: 'p', openai_organization: 'o' },
      headers,
    );
    expect(t.forwardHeaders).toEqual(['x-a', 'x-b']);
    expect(t.setHeaders).toEqual({ 'openai-project': 'p', 'openai-organization': 'o' });
  });

  it('throws the gateway error for an unknown or missing provider', () => {
    const none: HeaderProvider = { ...headers, provider: undefined, customHost: undefined };
    expect(() => leafTarget({}, none)).toThrow(AppError);
    expect(() => leafTarget({ provider: 'nope' }, headers)).toThrow(/unknown provider "nope"/);
  });
});

describe('cloudOptions', () => {
  it('lays the config fields over the header fields one by one', () => {
    const s: EffectiveSettings = { azure_deployment_id: 'dep', anthropic_beta: 'b1' };
    expect(cloudOptions(s, headers.cloud)).toEqual({
      azure: { resourceName: 'from-header', deploymentId: 'dep', apiVersion: '2024-10-21' },
      anthropicBeta: 'b1',
      anthropicVersion: '2023-01-01',
    });
    expect(
      cloudOptions({ aws_access_key_id: 'AK', aws_secret_access_key: 's', aws_region: 'us-east-1' }, {}),
    ).toEqual({ bedrock: { accessKeyId: 'AK', secretAccessKey: 's', region: 'us-east-1' } });
    expect(cloudOptions({ vertex_project_id: 'p', vertex_region: 'r' }, {})).toEqual({
      vertex: { projectId: 'p', region: 'r' },
    });
  });
});
