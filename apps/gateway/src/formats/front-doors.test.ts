// The front doors' pure functions: Anthropic Messages and OpenAI Responses requests read into OpenAI
// chat, and OpenAI answers and chunks written back in their shapes (documented examples of each API).
import { describe, expect, it } from 'vitest';
import { TranslationError } from './chat-openai.js';
import {
  chatFromMessages,
  MessagesStreamWriter,
  messageFromCompletion,
  messagesError,
} from './messages-anthropic.js';
import { chatFromResponses, ResponsesStreamWriter, responseFromCompletion } from './responses-openai.js';

const completion = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-4o',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
        ],
      },
      finish_reason: 'tool_calls',
    },
  ],
  usage: {
    prompt_tokens: 100,
    completion_tokens: 20,
    total_tokens: 120,
    prompt_tokens_details: { cached_tokens: 40 },
  },
};

const chunk = (delta: object, finish: string | null = null, usage?: object) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  model: 'gpt-4o',
  choices: [{ index: 0, delta, finish_reason: finish }],
  ...(usage ? { usage } : {}),
});
const chunks = [
  chunk({ role: 'assistant', content: '' }),
  chunk({ content: 'Hi' }),
  chunk({
    tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '' } }],
  }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '{"a":1}' } }] }),
  chunk({}, 'tool_calls', { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }),
];

describe('Anthropic Messages front door', () => {
  it('reads a Messages request with system, images, tool use and results into OpenAI chat', () => {
    const chat = chatFromMessages({
      model: 'claude-x',
      max_tokens: 50,
      system: [{ type: 'text', text: 'be nice', cache_control: { type: 'ephemeral' } }],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAA' } },
          ],
        },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: { a: 1 } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'done' }] },
      ],
      tools: [{ name: 'f', input_schema: { type: 'object' } }],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      stop_sequences: ['X'],
      metadata: { user_id: 'u1' },
    });
    expect(chat).toEqual({
      model: 'claude-x',
      messages: [
        { role: 'system', content: 'be nice' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAA' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 't1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
        },
        { role: 'tool', tool_call_id: 't1', content: 'done' },
      ],
      max_tokens: 50,
      stop: ['X'],
      user: 'u1',
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
      tool_choice: 'required',
      parallel_tool_calls: false,
    });
  });

  it('refuses what OpenAI chat cannot carry, naming it', () => {
    const refused = (body: object) => {
      try {
        chatFromMessages({ model: 'm', max_tokens: 1, messages: [], ...body });
      } catch (err) {
        return err instanceof TranslationError ? err.param : 'other';
      }
      return 'accepted';
    };
    expect(refused({ thinking: { type: 'enabled', budget_tokens: 1000 } })).toBe('thinking');
    expect(refused({ top_k: 3 })).toBe('top_k');
    expect(refused({ tools: [{ type: 'web_search_20250305', name: 'web_search' }] })).toBe('tools[0]');
  });

  it('writes a completion as a message: cache reads outside input_tokens, stop reason mapped', () => {
    expect(messageFromCompletion(completion, 'gpt-4o')).toEqual({
      id: 'chatcmpl-1',
      type: 'message',
      role: 'assistant',
      model: 'gpt-4o',
      content: [
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: {
        input_tokens: 60,
        output_tokens: 20,
        cache_read_input_tokens: 40,
        cache_creation_input_tokens: 0,
      },
    });
    expect(messagesError(429, { error: { message: 'slow down' } })).toEqual({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'slow down' },
    });
  });

  it('writes chunks as Messages stream events, one block per text run and tool call', () => {
    const writer = new MessagesStreamWriter('gpt-4o');
    const events = [...chunks.flatMap((c) => writer.chunk(c)), ...writer.end()];
    expect(events.map((e) => e.type)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events[4]?.data).toMatchObject({
      index: 1,
      content_block: { type: 'tool_use', id: 'call_1', name: 'f' },
    });
    expect(events[5]?.data).toMatchObject({ delta: { type: 'input_json_delta', partial_json: '{"a":1}' } });
    expect(events[7]?.data).toMatchObject({
      delta: { stop_reason: 'tool_use' },
      usage: { input_tokens: 10, output_tokens: 5 },
    });
  });
});

describe('OpenAI Responses front door', () => {
  it('reads input items, instructions, tools and text.format into OpenAI chat', () => {
    const chat = chatFromResponses({
      model: 'm',
      instructions: 'be brief',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'hi' },
            { type: 'input_image', image_url: 'https://x/y.png' },
          ],
        },
        { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
        { type: 'function_call', call_id: 'c2', name: 'g', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'ok' },
      ],
      tools: [{ type: 'function', name: 'f', parameters: { type: 'object' }, strict: true }],
      tool_choice: { type: 'function', name: 'f' },
      max_output_tokens: 9,
      text: { format: { type: 'json_schema', name: 's', schema: { type: 'object' }, strict: true } },
    });
    expect(chat).toEqual({
      model: 'm',
      messages: [
        { role: 'system', content: 'be brief' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'hi' },
            { type: 'image_url', image_url: { url: 'https://x/y.png' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } },
            { id: 'c2', type: 'function', function: { name: 'g', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'ok' },
      ],
      max_tokens: 9,
      response_format: {
        type: 'json_schema',
        json_schema: { name: 's', schema: { type: 'object' }, strict: true },
      },
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
      tool_choice: { type: 'function', function: { name: 'f' } },
    });
    expect(() => chatFromResponses({ model: 'm', input: 'x', previous_response_id: 'r' })).toThrow(
      TranslationError,
    );
    expect(() => chatFromResponses({ model: 'm', input: 'x', store: true })).toThrow(TranslationError);
  });

  it('writes a completion as a response and chunks as Responses events', () => {
    const response = responseFromCompletion(completion, 'abc', 7, 'gpt-4o');
    expect(response).toMatchObject({
      id: 'resp_abc',
      object: 'response',
      created_at: 7,
      status: 'completed',
      output: [
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.' }] },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      ],
      usage: {
        input_tokens: 100,
        output_tokens: 20,
        total_tokens: 120,
        input_tokens_details: { cached_tokens: 40 },
      },
    });
    const writer = new ResponsesStreamWriter('abc', 7, 'gpt-4o');
    const events = [...chunks.flatMap((c) => writer.chunk(c)), ...writer.end()];
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.data.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events.at(-1)?.data).toMatchObject({
      response: { status: 'completed', usage: { output_tokens: 5 } },
    });
  });
});
