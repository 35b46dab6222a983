import { describe, expect, it } from 'vitest';
import {
  anthropic,
  anyFormat,
  bedrock,
  detectFormat,
  formatFor,
  gemini,
  jsonText,
  mayCarryUsage,
  openai,
  requestText,
  streamFacts,
} from './index.js';

describe('formatFor', () => {
  it('picks the format by provider type and path', () => {
    expect(formatFor('openai', '/chat/completions')).toBe(openai);
    expect(formatFor('groq', '/chat/completions')).toBe(openai);
    expect(formatFor('azure-openai', '/openai/deployments/d/chat/completions')).toBe(openai);
    expect(formatFor('anthropic', '/v1/messages')).toBe(anthropic);
    expect(formatFor('bedrock', '/model/anthropic.claude-3-haiku-20240307-v1:0/converse-stream')).toBe(
      bedrock,
    );
    expect(formatFor('bedrock', '/model/anthropic.claude-3-haiku-20240307-v1:0/invoke')).toBe(anthropic);
    expect(formatFor('bedrock', '/model/us.anthropic.claude-3-haiku-20240307-v1:0/invoke')).toBe(anthropic);
    expect(formatFor('bedrock', '/model/meta.llama3-8b-instruct-v1:0/invoke')).toBe(bedrock);
    expect(
      formatFor('vertex-ai', '/v1/projects/p/locations/l/publishers/google/models/g:generateContent'),
    ).toBe(gemini);
    expect(
      formatFor('vertex-ai', '/v1/projects/p/locations/l/publishers/anthropic/models/c:rawPredict'),
    ).toBe(anthropic);
    expect(formatFor('vertex-ai', '/v1/projects/p/locations/l/endpoints/openapi/chat/completions')).toBe(
      openai,
    );
  });
});

describe('detectFormat', () => {
  it('knows each format by its shape', () => {
    expect(detectFormat({ choices: [] })).toBe(openai);
    expect(detectFormat({ object: 'response', output: [] })).toBe(openai);
    expect(detectFormat({ type: 'response.output_text.delta', delta: 'x' })).toBe(openai);
    expect(detectFormat({ type: 'message', content: [] })).toBe(anthropic);
    expect(detectFormat({ type: 'content_block_delta', delta: { text: 'x' } })).toBe(anthropic);
    expect(detectFormat([{ candidates: [] }])).toBe(gemini);
    expect(detectFormat({ output: { message: { content: [] } } })).toBe(bedrock);
    expect(detectFormat({ object: 'list', data: [] })).toBeUndefined();
    expect(detectFormat('text')).toBeUndefined();
  });
});

describe('streamFacts', () => {
  it('skips an event cut at the front of a tail window and reads the rest', () => {
    const tail =
      'sage":null,"choices":[{"delta":{"content":"x"}}]}\n\n' +
      'data: {"model":"m","choices":[],"usage":{"prompt_tokens":2,"completion_tokens":1}}\n\ndata: [DONE]\n\n';
    expect(streamFacts(tail)).toEqual({
      model: 'm',
      usage: { inputTokens: 2, outputTokens: 1, totalTokens: 3, cachedInputTokens: 0, estimated: false },
    });
  });

  it('reads the usage of a stream that ends without its last blank line', () => {
    expect(streamFacts('data: {"usage":{"prompt_tokens":2,"completion_tokens":1}}').usage?.totalTokens).toBe(
      3,
    );
  });
});

describe('mayCarryUsage', () => {
  it('is false only when every usage mention is a null one', () => {
    expect(mayCarryUsage('{"choices":[],"usage":null}')).toBe(false);
    expect(mayCarryUsage('{"choices":[]}')).toBe(false);
    expect(mayCarryUsage('{"usage":null,"usageMetadata":{}}')).toBe(true);
    expect(mayCarryUsage('{"usage":{"prompt_tokens":1}}')).toBe(true);
    expect(mayCarryUsage('{"u\\u0073age":{}}')).toBe(true);
  });
});

describe('jsonText', () => {
  it('leaves bodies of no known answer shape to the caller', () => {
    expect(jsonText({ results: [{ flagged: false }] })).toBeUndefined();
    expect(jsonText([{ id: 1 }])).toBeUndefined();
    expect(jsonText({ object: 'list', data: [] })).toBeUndefined();
    expect(anyFormat.text({ outputs: [{ text: 'mistral on bedrock', stop_reason: 'stop' }] })).toBe(
      'mistral on bedrock',
    );
  });
});

describe('requestText', () => {
  it('gathers every text a model reads, across formats', () => {
    expect(
      requestText({
        model: 'm',
        system: [{ type: 'text', text: 'sys' }],
        messages: [
          { role: 'user', content: 'one' },
          { role: 'assistant', content: [{ type: 'text', text: 'two' }] },
          {
            role: 'user',
            content: [
              { type: 'image_url', image_url: { url: 'x' } },
              { type: 'text', text: 'three' },
            ],
          },
        ],
        tools: [{ type: 'function', function: { name: 'f' } }],
        temperature: 0.2,
      }),
    ).toBe('sys\none\ntwo\nthree\n[{"type":"function","function":{"name":"f"}}]');
    expect(
      requestText({
        systemInstruction: { parts: [{ text: 'be brief' }] },
        contents: [{ role: 'user', parts: [{ text: 'hi' }, { text: 'there' }] }],
      }),
    ).toBe('be brief\nhi\nthere');
    expect(requestText({ model: 'gpt-3.5-turbo-instruct', prompt: ['a', 'b'] })).toBe('a\nb');
    expect(requestText({ input: [{ role: 'user', content: [{ type: 'input_text', text: 'resp' }] }] })).toBe(
      'resp',
    );
    expect(requestText('nope')).toBe('');
  });
});
