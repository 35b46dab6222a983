// readResponseFacts' cost per answer is the formats module's: one 1 KB OpenAI JSON answer and the
// tail of a 40-chunk OpenAI stream with include_usage. Run with `pnpm --filter @aigw/gateway bench`.
import { bench, describe } from 'vitest';
import { jsonFacts, streamFacts } from './index.js';

const answer = Buffer.from(
  JSON.stringify({
    id: 'chatcmpl-abc123',
    object: 'chat.completion',
    created: 1741569952,
    model: 'gpt-4o-2024-08-06',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: 'x'.repeat(620), refusal: null },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: {
      prompt_tokens: 19,
      completion_tokens: 10,
      total_tokens: 29,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
    },
    service_tier: 'default',
    system_fingerprint: 'fp_44709d6fcb',
  }),
);

const head =
  '{"id":"chatcmpl-abc123","object":"chat.completion.chunk","created":1741569952,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_44709d6fcb",';
let sse = '';
for (let i = 0; i < 38; i++) {
  sse += `data: ${head}"choices":[{"index":0,"delta":{"content":"word${i} "},"logprobs":null,"finish_reason":null}],"usage":null}\n\n`;
}
sse += `data: ${head}"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}\n\n`;
sse += `data: ${head}"choices":[],"usage":{"prompt_tokens":19,"completion_tokens":40,"total_tokens":59}}\n\n`;
sse += 'data: [DONE]\n\n';
const tail = Buffer.from(sse);

describe('answer facts', () => {
  bench('1 KB OpenAI JSON answer', () => {
    jsonFacts(JSON.parse(answer.toString('utf8')));
  });
  bench('40-chunk OpenAI stream tail with usage', () => {
    streamFacts(tail);
  });
});
