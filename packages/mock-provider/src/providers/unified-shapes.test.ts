// The native shapes the gateway's unified API translates to: Cohere v2 chat and embed, Google AI
// Studio, Vertex predict, Bedrock embedding models, and tool calls in every chat shape (tools.ts).
import { describe, expect, it } from 'vitest';
import { json, postJson, sseData, useMock } from '../../test/helpers.js';
import { decodeEventMessages } from '../eventstream.js';
import { DEFAULT_AWS_CREDENTIALS } from '../server.js';
import { signAwsRequest } from '../sigv4.js';

const mock = useMock();
const BEARER = { authorization: 'Bearer key' };
const TOOLS = [
  { type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } },
  { type: 'function', function: { name: 'fetch', parameters: { type: 'object' } } },
];

describe('Cohere v2', () => {
  it('chat answers the echo with billed usage, and rejects a call without a key', async () => {
    const body = { model: 'command-r-plus', messages: [{ role: 'user', content: 'hello cohere' }] };
    const res = await postJson(`${mock().url}/v2/chat`, body, BEARER);
    expect(await json(res)).toMatchObject({
      finish_reason: 'COMPLETE',
      message: { role: 'assistant', content: [{ type: 'text', text: 'hello cohere' }] },
      usage: { billed_units: { input_tokens: 2, output_tokens: 2 } },
    });
    const refused = await postJson(`${mock().url}/v2/chat`, body, {});
    expect(refused.status).toBe(401);
    expect(await json(refused)).toMatchObject({ message: 'no api key supplied' });
  });

  it('chat streams typed events and calls every offered tool (parallel) until a tool result comes', async () => {
    const body = { model: 'c', stream: true, tools: TOOLS, messages: [{ role: 'user', content: 'find it' }] };
    const events = sseData(await (await postJson(`${mock().url}/v2/chat`, body, BEARER)).text());
    expect(events.map((e) => e.type)).toEqual([
      'message-start',
      ...['tool-call-start', 'tool-call-delta', 'tool-call-end'],
      ...['tool-call-start', 'tool-call-delta', 'tool-call-end'],
      'message-end',
    ]);
    expect(events.at(-1)).toMatchObject({ delta: { finish_reason: 'TOOL_CALL' } });
    const after = await json(
      await postJson(
        `${mock().url}/v2/chat`,
        {
          ...body,
          stream: false,
          messages: [...body.messages, { role: 'tool', tool_call_id: 'x', content: 'found' }],
        },
        BEARER,
      ),
    );
    expect(after).toMatchObject({ finish_reason: 'COMPLETE' });
  });

  it('embed answers float vectors for every text and billed input tokens', async () => {
    const res = await postJson(
      `${mock().url}/v2/embed`,
      { model: 'embed-v4.0', texts: ['a b', 'c'], input_type: 'search_document', embedding_types: ['float'] },
      BEARER,
    );
    const body = await json(res);
    expect(body.embeddings.float).toHaveLength(2);
    expect(body.meta.billed_units.input_tokens).toBe(3);
  });
});

describe('Google AI Studio', () => {
  const url = (method: string) => `${mock().url}/v1beta/models/gemini-2.0-flash:${method}`;

  it('needs x-goog-api-key; answers generateContent like Vertex, function calls included', async () => {
    const body = {
      contents: [{ role: 'user', parts: [{ text: 'call it' }] }],
      tools: [{ functionDeclarations: [{ name: 'lookup' }] }],
    };
    expect((await postJson(url('generateContent'), body, BEARER)).status).toBe(403);
    const answer = await json(await postJson(url('generateContent'), body, { 'x-goog-api-key': 'k' }));
    expect(answer.candidates[0].content.parts).toEqual([
      { functionCall: { name: 'lookup', args: { input: 'call it' } } },
    ]);
    const jsonMode = await json(
      await postJson(
        url('generateContent'),
        { contents: body.contents, generationConfig: { responseMimeType: 'application/json' } },
        { 'x-goog-api-key': 'k' },
      ),
    );
    expect(JSON.parse(jsonMode.candidates[0].content.parts[0].text)).toEqual({ input: 'call it' });
  });

  it('batchEmbedContents answers one vector per request', async () => {
    const body = { requests: [{ model: 'models/text-embedding-004', content: { parts: [{ text: 'x' }] } }] };
    const answer = await json(await postJson(url('batchEmbedContents'), body, { 'x-goog-api-key': 'k' }));
    expect(answer.embeddings[0].values).toHaveLength(768);
  });
});

describe('Vertex predict (embeddings)', () => {
  it('answers predictions with token statistics', async () => {
    const url = `${mock().url}/v1/projects/p/locations/us-central1/publishers/google/models/text-embedding-005:predict`;
    const answer = await json(await postJson(url, { instances: [{ content: 'one two' }] }, BEARER));
    expect(answer.predictions[0].embeddings.statistics.token_count).toBe(2);
  });
});

describe('tool calls in Anthropic and Bedrock shapes', () => {
  it('Anthropic: a forced tool is called, with its input streamed as JSON deltas', async () => {
    const body = {
      model: 'claude',
      max_tokens: 10,
      stream: true,
      tools: [
        { name: 'lookup', input_schema: { type: 'object' } },
        { name: 'other', input_schema: {} },
      ],
      tool_choice: { type: 'tool', name: 'lookup' },
      messages: [{ role: 'user', content: 'find' }],
    };
    const res = await postJson(`${mock().url}/v1/messages`, body, {
      'x-api-key': 'k',
      'anthropic-version': '2023-06-01',
    });
    const events = sseData(await res.text());
    const partial = events
      .filter((e) => e.delta?.type === 'input_json_delta')
      .map((e) => e.delta.partial_json)
      .join('');
    expect(JSON.parse(partial)).toEqual({ input: 'find' });
    expect(events.filter((e) => e.type === 'content_block_start')).toHaveLength(1);
    expect(events.find((e) => e.type === 'message_delta')?.delta.stop_reason).toBe('tool_use');
  });

  it('Bedrock ConverseStream: toolUse blocks start and stream their input', async () => {
    const body = JSON.stringify({
      messages: [{ role: 'user', content: [{ text: 'find' }] }],
      toolConfig: { tools: [{ toolSpec: { name: 'lookup', inputSchema: { json: {} } } }] },
    });
    const url = `${mock().url}/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse-stream`;
    const headers = signAwsRequest({
      method: 'POST',
      url,
      body,
      region: 'us-east-1',
      credentials: DEFAULT_AWS_CREDENTIALS,
      headers: { 'content-type': 'application/json' },
    });
    const res = await fetch(url, { method: 'POST', headers, body });
    expect(res.status).toBe(200);
    const messages = decodeEventMessages(Buffer.from(await res.arrayBuffer()));
    const types = messages.map((m) => m.headers[':event-type']);
    expect(types).toEqual([
      'messageStart',
      'contentBlockStart',
      'contentBlockDelta',
      'contentBlockStop',
      'messageStop',
      'metadata',
    ]);
    expect(JSON.parse(messages[4]!.payload.toString())).toEqual({ stopReason: 'tool_use' });
  });
});
