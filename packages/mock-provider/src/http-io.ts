// Writing responses: JSON, text and errors, with provider-looking headers and retry hints.
import type { ServerResponse } from 'node:http';
import type { RouteContext } from './context.js';
import type { ProviderError } from './errors.js';
import type { MockKnobs, ProviderName } from './types.js';

/** Headers each provider sets on every response (request ids, rate-limit snapshot, versions). */
export function providerHeaders(provider: ProviderName, requestId: string): Record<string, string> {
  const common = { 'x-request-id': requestId };
  switch (provider) {
    case 'openai':
      return {
        ...common,
        'openai-version': '2020-10-01',
        'openai-processing-ms': '1',
        'x-ratelimit-limit-requests': '10000',
        'x-ratelimit-remaining-requests': '9999',
        'x-ratelimit-reset-requests': '6ms',
        'x-ratelimit-limit-tokens': '2000000',
        'x-ratelimit-remaining-tokens': '1999000',
        'x-ratelimit-reset-tokens': '30ms',
      };
    case 'azure':
      return {
        ...common,
        'apim-request-id': requestId,
        'x-ms-region': 'East US',
        'x-ratelimit-remaining-requests': '999',
        'x-ratelimit-remaining-tokens': '99000',
      };
    case 'anthropic':
      return {
        ...common,
        'request-id': requestId,
        'anthropic-ratelimit-requests-limit': '4000',
        'anthropic-ratelimit-requests-remaining': '3999',
        'anthropic-ratelimit-tokens-limit': '400000',
        'anthropic-ratelimit-tokens-remaining': '399000',
      };
    case 'bedrock':
      return { ...common, 'x-amzn-requestid': requestId };
    case 'vertex':
    case 'google':
    case 'cohere':
    case 'mock':
      return common;
  }
}

/** `retry-after` (seconds, rounded up) and `retry-after-ms` when the retryAfter knob is set. */
export function retryHeaders(knobs: Pick<MockKnobs, 'retryAfter'>): Record<string, string> {
  if (knobs.retryAfter === undefined) return {};
  return {
    'retry-after': String(Math.ceil(knobs.retryAfter)),
    'retry-after-ms': String(Math.round(knobs.retryAfter * 1000)),
  };
}

function canWrite(res: ServerResponse): boolean {
  return !res.headersSent && !res.destroyed && !res.writableEnded;
}

export function sendBody(
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
): void {
  if (!canWrite(res)) return;
  const payload = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, {
    ...headers,
    'content-type': contentType,
    'content-length': String(payload.length),
  });
  res.end(payload);
}

export function sendJson(
  ctx: RouteContext,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendBody(ctx.res, status, 'application/json', JSON.stringify(body), headers);
}

/** Errors carry the retry hints of the knobs, whatever caused them. */
export function sendError(ctx: Pick<RouteContext, 'res' | 'knobs'>, error: ProviderError): void {
  sendBody(ctx.res, error.status, 'application/json', JSON.stringify(error.body), {
    ...retryHeaders(ctx.knobs),
    ...error.headers,
  });
}
