// A translated answer is read whole before it is rewritten, and a stream event before it is rewritten
// or stripped of its usage: one larger than MAX_BODY_BYTES is a 502 in the envelope (a stream, or a
// config leaf's answer: cut off, its head being out), not a buffer that grows with whatever a
// (custom-host) provider sends.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type GatewayApp } from '../app.js';
import { loadGatewayConfig } from '../config.js';

const LIMIT = 64 * 1024;
let app: GatewayApp;
/** A provider at a custom host that answers with a text `size` bytes long (`?size=` in its base path). */
let provider: Server;
let providerBase = '';

beforeAll(async () => {
  provider = createServer((req, res) => {
    req.resume();
    if (req.url?.includes('/endless-event/')) {
      // One event that never ends (no line end), 4x the limit, then the end of the answer.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: ');
      const piece = 'a'.repeat(16 * 1024);
      for (let sent = 0; sent < LIMIT * 4; sent += piece.length) res.write(piece);
      res.end();
      return;
    }
    const size = Number(/\/size-(\d+)\//.exec(req.url ?? '')?.[1] ?? 0);
    const text = 'a'.repeat(size);
    const openai = req.url?.endsWith('/chat/completions');
    const answer = openai
      ? {
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 1,
          model: 'gpt-4o',
          choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }
      : {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'claude-x',
          content: [{ type: 'text', text }],
          stop_reason: 'end_turn',
          usage: { input_tokens: 1, output_tokens: 1 },
        };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer));
  });
  provider.listen(0, '127.0.0.1');
  await once(provider, 'listening');
  providerBase = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
  app = createApp(
    loadGatewayConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      CUSTOM_HOST_ALLOWLIST: '127.0.0.1',
      MAX_BODY_BYTES: String(LIMIT),
    }),
  );
  await app.start();
});

afterAll(async () => {
  await app?.stop();
  provider?.close();
});

async function call(path: string, provider: string, size: number, body: object) {
  const res = await fetch(`http://127.0.0.1:${app.port}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-provider': provider,
      'x-service-custom-host': `${providerBase}/size-${size}/v1`,
      authorization: 'Bearer sk-test',
    },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    gatewayError: res.headers.get('x-service-gateway-error'),
    text: await res.text(),
  };
}

const chat = { model: 'claude-x', messages: [{ role: 'user', content: 'hi' }] };
const messages = { model: 'gpt-4o', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] };

describe('a translated answer read whole', () => {
  it.each([
    ['chat completions sent to Anthropic', '/v1/chat/completions', 'anthropic', chat],
    ['the Messages front door sent to OpenAI', '/v1/messages', 'openai', messages],
  ])('%s: within MAX_BODY_BYTES it is translated', async (_case, path, provider, body) => {
    const res = await call(path, provider, LIMIT / 2, body);
    expect(res.status).toBe(200);
    expect(res.text).toContain('a'.repeat(LIMIT / 2));
  });

  it.each([
    ['chat completions sent to Anthropic', '/v1/chat/completions', 'anthropic', chat],
    ['the Messages front door sent to OpenAI', '/v1/messages', 'openai', messages],
  ])('%s: beyond MAX_BODY_BYTES it is a 502 gateway error', async (_case, path, provider, body) => {
    const res = await call(path, provider, LIMIT * 4, body);
    expect(res.status).toBe(502);
    expect(res.gatewayError).toBe('true');
    expect(JSON.parse(res.text)).toMatchObject({
      error: { code: 'upstream_unreachable', message: `The provider's answer is larger than ${LIMIT} bytes` },
    });
  });
});

describe("a config leaf's translated answer read whole", () => {
  function viaConfig(size: number) {
    const config = {
      provider: 'anthropic',
      api_key: 'sk-test',
      custom_host: `${providerBase}/size-${size}/v1`,
    };
    return fetch(`http://127.0.0.1:${app.port}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-config': JSON.stringify(config) },
      body: JSON.stringify(chat),
    }).then(async (res) => ({ status: res.status, text: await res.text() }));
  }

  it('within MAX_BODY_BYTES is translated; beyond it the answer is cut off', async () => {
    const small = await viaConfig(LIMIT / 2);
    expect(small.status).toBe(200);
    expect(small.text).toContain('a'.repeat(LIMIT / 2));
    await expect(viaConfig(LIMIT * 4)).rejects.toThrow('fetch failed');
  });
});

describe('a stream event that never ends', () => {
  const streamed = (body: object) => ({ ...body, stream: true });
  function endless(headers: Record<string, string>, path: string, body: object) {
    return fetch(`http://127.0.0.1:${app.port}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test', ...headers },
      body: JSON.stringify(body),
    }).then(async (res) => ({ status: res.status, text: await res.text() }));
  }
  const host = () => `${providerBase}/endless-event/v1`;

  it.each([
    ['translated (chat completions sent to Anthropic)', 'anthropic', '/v1/chat/completions', chat],
    [
      'with the usage the gateway asked for (OpenAI)',
      'openai',
      '/v1/chat/completions',
      { ...chat, model: 'gpt-4o' },
    ],
    ['through the Messages front door (OpenAI)', 'openai', '/v1/messages', messages],
  ])('%s: is cut off past MAX_BODY_BYTES', async (_case, provider, path, body) => {
    const call = endless(
      { 'x-service-provider': provider, 'x-service-custom-host': host() },
      path,
      streamed(body),
    );
    await expect(call).rejects.toThrow(/^(fetch failed|terminated)$/);
  });

  it("in a config leaf's translated stream: is cut off past MAX_BODY_BYTES", async () => {
    const config = { provider: 'anthropic', api_key: 'sk-test', custom_host: host() };
    const call = endless(
      { 'x-service-config': JSON.stringify(config) },
      '/v1/chat/completions',
      streamed(chat),
    );
    await expect(call).rejects.toThrow(/^(fetch failed|terminated)$/);
  });
});
