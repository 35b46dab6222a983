// A batch runs the models its requests name, not one its creation names: under an allow-list every
// request of the batch is checked before the batch is created (the input file read from the
// provider a line at a time, or Anthropic's requests in the body). Control-plane mode; the provider
// is a local server answering OpenAI's and Anthropic's documented shapes.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  apiKey,
  type ControlPlaneGateway,
  integration,
  organisation,
  provider,
  startControlPlaneGateway,
  workspace,
} from '../../test/control-plane-entities.js';

const line = (i: number, model: string) =>
  JSON.stringify({
    custom_id: `request-${i}`,
    method: 'POST',
    url: '/v1/chat/completions',
    body: { model, messages: [{ role: 'user', content: `question ${i}` }], max_tokens: 10 },
  });
const lines = (count: number, bad?: number) =>
  Array.from({ length: count }, (_, i) => line(i + 1, i + 1 === bad ? 'gpt-4o' : 'gpt-4o-mini')).join('\n');

/** Input files by id; each is written in small pieces, so that lines span chunks. */
const FILES: Record<string, string> = {
  'file-ok': `${lines(3)}\n`,
  'file-bad': lines(3, 3),
  'file-long': lines(4000, 3500),
  'file-long-ok': `${lines(4000)}\n\n`,
};

let upstream: Server;
let gw: ControlPlaneGateway;
const seen: { method: string; url: string; authorization: string | undefined }[] = [];
const created = () => seen.filter((r) => r.method === 'POST').map((r) => r.url);

function answer(req: IncomingMessage, res: import('node:http').ServerResponse) {
  seen.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization });
  req.resume();
  const file = /^\/v1\/files\/([^/]+)\/content$/.exec(req.url ?? '')?.[1];
  if (req.method === 'GET' && file !== undefined) {
    if (file === 'file-broken') {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"boom"}}');
      return;
    }
    const text = FILES[file];
    if (text === undefined) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"No such File object"}}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    const bytes = Buffer.from(text);
    for (let at = 0; at < bytes.length; at += 997) res.write(bytes.subarray(at, at + 997));
    res.end();
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ id: 'batch_new', object: req.url === '/v1/batches' ? 'batch' : 'message_batch' }));
}

const org = randomUUID();
const ws = randomUUID();
const key = `aigw_${randomUUID()}`;

beforeAll(async () => {
  upstream = createServer(answer);
  upstream.listen(0, '127.0.0.1');
  await new Promise((resolve) => upstream.once('listening', resolve));
  const host = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
  gw = await startControlPlaneGateway([]);
  const openaiInt = randomUUID();
  const anthropicInt = randomUUID();
  const freeInt = randomUUID();
  gw.use([
    organisation(org),
    workspace(ws, org),
    apiKey(key, org, ws),
    integration(openaiInt, org, {
      credentials: { api_key: 'sk-managed' },
      options: { custom_host: host },
      allowedModels: ['gpt-4o-mini'],
    }),
    provider(randomUUID(), org, ws, 'openai-listed', { integrationId: openaiInt }),
    integration(freeInt, org, { credentials: { api_key: 'sk-managed' }, options: { custom_host: host } }),
    provider(randomUUID(), org, ws, 'openai-free', { integrationId: freeInt }),
    integration(anthropicInt, org, {
      aiProvider: 'anthropic',
      credentials: { api_key: 'sk-ant-managed' },
      options: { custom_host: host },
      allowedModels: ['claude-3-5-haiku-latest'],
    }),
    provider(randomUUID(), org, ws, 'anthropic-listed', {
      integrationId: anthropicInt,
      aiProvider: 'anthropic',
    }),
  ]);
});

afterAll(async () => {
  await gw?.close();
  upstream?.closeAllConnections();
  upstream?.close();
});

async function create(path: string, body: unknown, headers: Record<string, string>) {
  seen.length = 0;
  const res = await fetch(`${gw.base}${path}`, {
    method: 'POST',
    headers: { 'x-service-api-key': key, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { error?: { code: string; param: string } } };
}

const batch = (file: string) => ({
  input_file_id: file,
  endpoint: '/v1/chat/completions',
  completion_window: '24h',
});
const listed = { 'x-service-provider': '@openai-listed' };

describe('batches under an allow-list', () => {
  test('an input file of allowed models is read with the managed credentials, then the batch is created', async () => {
    for (const file of ['file-ok', 'file-long-ok']) {
      const res = await create('/v1/batches', batch(file), listed);
      expect(res.status, file).toBe(200);
      expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual([
        `GET /v1/files/${file}/content`,
        'POST /v1/batches',
      ]);
      expect(seen[0]?.authorization).toBe('Bearer sk-managed');
    }
  });

  test('a line naming a model outside the list refuses the batch, naming the line; the provider creates nothing', async () => {
    for (const [file, number] of [
      ['file-bad', 3],
      ['file-long', 3500],
    ] as const) {
      const res = await create('/v1/batches', batch(file), listed);
      expect(res.status, file).toBe(403);
      expect(res.body.error).toMatchObject({
        code: 'model_not_allowed',
        param: `input_file_id (line ${number})`,
      });
      expect(created()).toEqual([]);
    }
  });

  test('an unreadable input file refuses the batch (502); a missing one is left to the provider', async () => {
    const broken = await create('/v1/batches', batch('file-broken'), listed);
    expect(broken.status).toBe(502);
    expect(broken.body.error).toMatchObject({ code: 'batch_input_unchecked', param: 'input_file_id' });
    expect(created()).toEqual([]);
    expect((await create('/v1/batches', batch('file-missing'), listed)).status).toBe(200);
    expect(created()).toEqual(['/v1/batches']);
  });

  test('without an allow-list the file is not read', async () => {
    const res = await create('/v1/batches', batch('file-bad'), { 'x-service-provider': '@openai-free' });
    expect(res.status).toBe(200);
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /v1/batches']);
  });

  test("Anthropic's message batches: each request's model is checked in the body", async () => {
    const requests = (model: string) => [
      { custom_id: 'a', params: { model: 'claude-3-5-haiku-latest', max_tokens: 5, messages: [] } },
      { custom_id: 'b', params: { model, max_tokens: 5, messages: [] } },
    ];
    const headers = { 'x-service-provider': '@anthropic-listed' };
    const refused = await create('/v1/messages/batches', { requests: requests('claude-opus-4-1') }, headers);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({
      code: 'model_not_allowed',
      param: 'requests[1].params.model',
    });
    expect(created()).toEqual([]);
    const ok = await create(
      '/v1/messages/batches',
      { requests: requests('claude-3-5-haiku-latest') },
      headers,
    );
    expect(ok.status).toBe(200);
    expect(created()).toEqual(['/v1/messages/batches']);
  });

  test('through a config, an allow-list refuses a batch it cannot check; reading batches still works', async () => {
    const config = { 'x-service-config': JSON.stringify({ provider: '@openai-listed' }) };
    const res = await create('/v1/batches', batch('file-ok'), config);
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'model_not_allowed', param: 'x-service-config' });
    expect(created()).toEqual([]);
    seen.length = 0;
    const list = await fetch(`${gw.base}/v1/batches`, { headers: { 'x-service-api-key': key, ...config } });
    expect(list.status).toBe(200);
    await list.text();
  });
});
