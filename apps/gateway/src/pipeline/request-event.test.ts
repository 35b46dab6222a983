import { RequestEvent } from '@aigw/proto';
import { describe, expect, it } from 'vitest';
import { eventEncoder } from '../events/event-encoder.js';
import { BodyCapture } from '../upstream/capture.js';
import { buildRequestEvent } from './request-event.js';

function facts(receivedAt: number) {
  const request = new BodyCapture(1024);
  request.push(Buffer.from('{"model":"gpt-4o","messages":[]}'));
  const response = new BodyCapture(1024);
  response.push(
    Buffer.from('{"model":"gpt-4o-2024","usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}'),
  );
  return {
    id: 'evt-1',
    traceId: 'trace-1',
    receivedAt,
    method: 'POST',
    path: '/chat/completions',
    provider: 'openai',
    customHost: '',
    metadata: { _user: 'u' },
    instanceId: 'gw-1',
    requestContentType: 'application/json',
    request,
    response,
    captureBodies: true,
  };
}

describe('buildRequestEvent', () => {
  it('records model, usage, bodies and timings', () => {
    const now = Date.now();
    const event = buildRequestEvent(facts(now - 5), {
      status: 200,
      upstreamStartedAt: now - 4,
      firstByteAt: now - 2,
      endedAt: now - 1,
      responseBytes: 80,
      contentType: 'application/json',
      clientAborted: false,
    });
    expect(event).toMatchObject({
      id: 'evt-1',
      modelRequested: 'gpt-4o',
      modelServed: 'gpt-4o-2024',
      statusCode: 200,
      tokens: { inputTokens: 3, outputTokens: 4, totalTokens: 7, estimated: false },
      metadata: { _user: 'u' },
    });
    expect(event.latency?.upstreamUs).toBe(3000);
    expect(event.requestBody?.data.toString()).toContain('gpt-4o');
  });

  it('takes the model the pipeline read from the whole body, which a truncated capture no longer parses', () => {
    const now = Date.now();
    const request = new BodyCapture(16);
    request.push(Buffer.from('{"model":"gpt-4o-mini","messages":[]}'));
    const answer = { status: 200, upstreamStartedAt: now, firstByteAt: now, endedAt: now, responseBytes: 0 };
    const outcome = { ...answer, contentType: undefined, clientAborted: false };
    expect(buildRequestEvent({ ...facts(now), request }, outcome).modelRequested).toBe('');
    expect(
      buildRequestEvent({ ...facts(now), request, modelRequested: 'gpt-4o-mini' }, outcome).modelRequested,
    ).toBe('gpt-4o-mini');
  });

  it('stays encodable when the wall clock stepped backwards during the request', () => {
    const now = Date.now();
    const event = buildRequestEvent(facts(now + 60_000), {
      status: 200,
      upstreamStartedAt: now + 50,
      firstByteAt: now + 10,
      endedAt: now,
      responseBytes: 80,
      contentType: 'application/json',
      clientAborted: false,
    });
    expect(event.latency).toMatchObject({
      totalUs: 0,
      upstreamUs: 0,
      timeToFirstByteUs: 0,
      gatewayOverheadUs: 0,
    });
    expect(RequestEvent.decode(RequestEvent.encode(event).finish()).id).toBe('evt-1');
  });

  it('builds a complete event: every field present, the same as fromPartial of it, encoded alike', () => {
    const now = Date.now();
    const encoder = eventEncoder();
    const cases = [
      buildRequestEvent(facts(now - 5), {
        status: 504,
        upstreamStartedAt: now - 4,
        firstByteAt: 0,
        endedAt: now - 1,
        responseBytes: 0,
        contentType: undefined,
        error: { code: 'upstream_timeout', message: 'late', type: 'upstream_error' },
        clientAborted: false,
      }),
      buildRequestEvent(
        {
          ...facts(now - 5),
          gatewayError: { code: 'invalid_json', message: 'bad', type: 'invalid_request_error', status: 400 },
        },
        undefined,
      ),
    ];
    for (const event of cases) {
      expect(Object.keys(event).sort()).toEqual(Object.keys(RequestEvent.fromPartial({})).sort());
      expect(event).toStrictEqual(RequestEvent.fromPartial(event));
      expect(Buffer.from(encoder.one(event)).equals(RequestEvent.encode(event).finish())).toBe(true);
    }
    expect(cases[0]?.attempts[0]?.error).toEqual({
      code: 'upstream_timeout',
      message: 'late',
      type: 'upstream_error',
    });
    expect(cases[1]).toMatchObject({ statusCode: 400, attempts: [], error: { code: 'invalid_json' } });
  });
});
