import { describe, expect, it } from 'vitest';
import { clientHeadersForProvider, responseHeaders, upstreamHeaders } from './headers.js';

describe('headers crossing the gateway', () => {
  it('drops hop-by-hop, Host, Connection-listed and x-service-* headers from the client', () => {
    const out = clientHeadersForProvider({
      host: 'gateway:8787',
      connection: 'keep-alive, x-hop',
      'keep-alive': 'timeout=5',
      'x-hop': '1',
      'transfer-encoding': 'chunked',
      'proxy-authorization': 'Basic x',
      te: 'trailers',
      'x-service-api-key': 'secret',
      'x-service-provider': 'openai',
      authorization: 'Bearer sk',
      'content-type': 'application/json',
      'content-length': '12',
      'openai-beta': 'assistants=v2',
    });
    expect(out).toEqual({
      authorization: 'Bearer sk',
      'content-type': 'application/json',
      'content-length': '12',
      'openai-beta': 'assistants=v2',
    });
  });

  it('applies the provider conversion except for forwarded headers, and sets Host', () => {
    const target = {
      url: new URL('https://api.anthropic.com/v1/messages'),
      setHeaders: { 'x-api-key': 'sk', 'anthropic-version': '2023-06-01' },
      removeHeaders: ['authorization'],
    };
    expect(upstreamHeaders({ authorization: 'Bearer sk', accept: '*/*' }, target, [])).toEqual({
      accept: '*/*',
      'x-api-key': 'sk',
      'anthropic-version': '2023-06-01',
      host: 'api.anthropic.com',
    });
    const forwarded = upstreamHeaders(
      { authorization: 'Bearer sk', 'anthropic-version': '2024-01-01' },
      target,
      ['authorization', 'anthropic-version'],
    );
    expect(forwarded).toMatchObject({
      authorization: 'Bearer sk',
      'anthropic-version': '2024-01-01',
      'x-api-key': 'sk',
    });
  });

  it('passes provider response headers except hop-by-hop ones', () => {
    expect(
      responseHeaders({
        'content-type': 'text/event-stream',
        'transfer-encoding': 'chunked',
        connection: 'keep-alive',
        'keep-alive': 'timeout=5',
        'x-request-id': 'req_1',
        'openai-processing-ms': '12',
      }),
    ).toEqual({ 'content-type': 'text/event-stream', 'x-request-id': 'req_1', 'openai-processing-ms': '12' });
  });

  it('puts the gateway headers first and lets them win over the provider', () => {
    const out = responseHeaders(
      { 'content-type': 'application/json', 'x-service-provider': 'spoofed', date: 'Sun' },
      { 'x-service-trace-id': 't-1', 'x-service-provider': 'openai' },
    );
    expect(Object.entries(out)).toEqual([
      ['x-service-trace-id', 't-1'],
      ['x-service-provider', 'openai'],
      ['content-type', 'application/json'],
      ['date', 'Sun'],
    ]);
  });
});
