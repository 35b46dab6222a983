// The unified API's own CPU per call, without the network: an OpenAI chat request translated for
// Anthropic and its answer translated back, JSON (one ~600-character answer) and streamed (a
// 40-delta Anthropic stream in 1 KB chunks). Run with `pnpm --filter @aigw/gateway bench`; the
// whole-gateway figure is bench/cpu-per-request.ts with PROFILE_TRANSLATED (docs/unified-api.md).
import { bench, describe } from 'vitest';
import { translationFor } from './translation.js';

const request = {
  model: 'claude-3-5-haiku-latest',
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'Write a few sentences about the sea and the light on it in the evening.' },
  ],
  temperature: 0.2,
  max_tokens: 200,
};

const text = 'The sea holds the last light. '.repeat(20);
const answer = Buffer.from(
  JSON.stringify({
    id: 'msg_01',
    type: 'message',
    role: 'assistant',
    model: 'claude-3-5-haiku-20241022',
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: {
      input_tokens: 30,
      output_tokens: 120,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    },
  }),
);

const sse = (type: string, data: unknown) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...(data as object) })}\n\n`;
const streamBody = Buffer.from(
  [
    sse('message_start', {
      message: {
        id: 'msg_01',
        type: 'message',
        role: 'assistant',
        model: 'claude-3-5-haiku-20241022',
        content: [],
        usage: { input_tokens: 30, output_tokens: 1 },
      },
    }),
    sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    ...Array.from({ length: 40 }, (_, i) =>
      sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: `word${i} ` } }),
    ),
    sse('content_block_stop', { index: 0 }),
    sse('message_delta', {
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 40 },
    }),
    sse('message_stop', {}),
  ].join(''),
);
const streamChunks = Array.from({ length: Math.ceil(streamBody.length / 1024) }, (_, i) =>
  streamBody.subarray(i * 1024, (i + 1) * 1024),
);

const input = (stream: boolean) => ({
  method: 'POST',
  path: '/chat/completions',
  providerId: 'anthropic',
  cloud: {},
  json: stream ? { ...request, stream: true, stream_options: { include_usage: true } } : request,
});

describe('unified API: OpenAI chat to Anthropic and back', () => {
  bench('JSON: request, then the answer', () => {
    const translation = translationFor(input(false));
    const body = translation?.response(200, { 'content-type': 'application/json' });
    body?.push(answer);
    body?.end();
  });

  bench('stream: request, then 40 deltas in 1 KB chunks', () => {
    const translation = translationFor(input(true));
    const body = translation?.response(200, { 'content-type': 'text/event-stream' });
    for (const chunk of streamChunks) body?.push(chunk);
    body?.end();
  });
});
