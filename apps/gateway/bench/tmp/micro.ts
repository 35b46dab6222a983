import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { RequestEvent } from '@aigw/proto';
import { BodyCapture } from '../../src/proxy/capture.js';
import { buildRequestEvent } from '../../src/proxy/request-event.js';
import { readResponseFacts } from '../../src/proxy/usage.js';
import { chatBody } from '../harness.js';

const raw = readFileSync('/tmp/mock-json.txt', 'utf8');
const jsonBody = Buffer.from(raw.slice(raw.indexOf('\r\n\r\n') + 4));
const sraw = readFileSync('/tmp/mock-sse.txt', 'utf8');
const sseBody = Buffer.from(sraw.slice(sraw.indexOf('\r\n\r\n') + 4));
const reqBody = Buffer.from(chatBody(false));
function facts(stream: boolean) {
  const request = new BodyCapture(64 * 1024);
  const response = new BodyCapture(64 * 1024);
  request.push(reqBody);
  if (stream) { for (const part of sseBody.toString().split('\n\n')) response.push(Buffer.from(part + '\n\n')); }
  else response.push(jsonBody);
  return {
    id: randomUUID(), traceId: randomUUID(), provider: 'openai', customHost: 'http://127.0.0.1:1234',
    metadata: {}, receivedAt: Date.now(), method: 'POST', path: '/chat/completions', instanceId: 'gateway-1',
    requestContentType: 'application/json', request, response, captureBodies: true,
  };
}
const result = (stream: boolean) => ({ status: 200, upstreamStartedAt: Date.now(), firstByteAt: Date.now(), endedAt: Date.now(), responseBytes: 1, responseHeaders: { 'content-type': stream ? 'text/event-stream' : 'application/json' }, clientAborted: false });
function time(name: string, n: number, fn: () => unknown) {
  for (let i = 0; i < 2000; i++) fn();
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn();
  console.log(name.padEnd(40), (Number(process.hrtime.bigint() - t) / n / 1000).toFixed(2), 'µs');
}
for (const stream of [false, true]) {
  const f = facts(stream); const r = result(stream);
  console.log(stream ? 'STREAM' : 'JSON');
  time('facts+captures', 20000, () => facts(stream));
  time('readResponseFacts', 20000, () => readResponseFacts(r.responseHeaders['content-type'], f.response.complete(), f.response.tail()));
  time('JSON.parse request', 20000, () => JSON.parse(reqBody.toString('utf8')));
  time('buildRequestEvent', 20000, () => buildRequestEvent(f, r));
  const ev = buildRequestEvent(f, r);
  time('encode', 20000, () => RequestEvent.encode(ev).finish());
  console.log('event bytes', RequestEvent.encode(ev).finish().length);
}
{
  const f = facts(false); const r = result(false);
  const ev = buildRequestEvent(f, r);
  const w = RequestEvent.encode(RequestEvent.fromPartial({})); w.finish();
  time('encode shared writer', 50000, () => RequestEvent.encode(ev, w).finish());
  const noBodies = { ...ev, requestBody: undefined, responseBody: undefined };
  time('encode no bodies', 50000, () => RequestEvent.encode(noBodies).finish());
  time('encode no bodies shared', 50000, () => RequestEvent.encode(noBodies, w).finish());
  const noLat = { ...noBodies, latency: undefined, attempts: [], tokens: undefined, provider: undefined };
  time('encode flat', 50000, () => RequestEvent.encode(noLat, w).finish());
  time('encode empty', 50000, () => RequestEvent.encode(RequestEvent.fromPartial({id: 'x'}), w).finish());
}
