import { describe, expect, it } from 'vitest';
import { textOf } from './text-of.js';
import type { GuardrailContext } from './types.js';

const input = (requestJson: unknown): GuardrailContext => ({
  phase: 'input',
  requestJson,
  metadata: {},
  provider: 'openai',
});
const output = (responseJson: unknown, responseText?: string): GuardrailContext => ({
  phase: 'output',
  requestJson: {},
  responseJson,
  ...(responseText !== undefined && { responseText }),
  metadata: {},
  provider: 'openai',
});

describe('textOf, input', () => {
  it('reads the last user message of an OpenAI chat', () => {
    const body = {
      messages: [
        { role: 'system', content: 'be terse' },
        { role: 'user', content: 'first question' },
        { role: 'assistant', content: 'first answer' },
        { role: 'user', content: 'second question' },
      ],
    };
    expect(textOf(input(body))).toBe('second question');
  });

  it('joins consecutive user messages at the end, and text parts of multimodal content', () => {
    const body = {
      messages: [
        { role: 'assistant', content: 'hi' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look at' },
            { type: 'image_url', image_url: { url: 'x' } },
          ],
        },
        { role: 'user', content: 'this picture' },
      ],
    };
    expect(textOf(input(body))).toBe('look at\nthis picture');
  });

  it('skips trailing non-user messages (tool results, assistant prefill)', () => {
    const body = {
      messages: [
        { role: 'user', content: 'the question' },
        { role: 'assistant', content: null, tool_calls: [] },
        { role: 'tool', content: 'tool output' },
      ],
    };
    expect(textOf(input(body))).toBe('the question');
  });

  it('reads Anthropic messages with content blocks', () => {
    const body = {
      system: 'be terse',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hello claude' }] }],
    };
    expect(textOf(input(body))).toBe('hello claude');
  });

  it('reads Gemini contents and Bedrock Converse messages', () => {
    expect(textOf(input({ contents: [{ role: 'user', parts: [{ text: 'hi gemini' }] }] }))).toBe('hi gemini');
    expect(textOf(input({ messages: [{ role: 'user', content: [{ text: 'hi bedrock' }] }] }))).toBe(
      'hi bedrock',
    );
  });

  it('reads a completions prompt, string or list', () => {
    expect(textOf(input({ prompt: 'complete this' }))).toBe('complete this');
    expect(textOf(input({ prompt: ['one', 'two'] }))).toBe('one\ntwo');
    expect(textOf(input({ prompt: [1, 2, 3] }))).toBe('');
  });

  it('reads an embeddings input, string or list', () => {
    expect(textOf(input({ input: 'embed me' }))).toBe('embed me');
    expect(textOf(input({ input: ['a', 'b'] }))).toBe('a\nb');
  });

  it('reads Responses API input items', () => {
    const body = { input: [{ role: 'user', content: [{ type: 'input_text', text: 'respond' }] }] };
    expect(textOf(input(body))).toBe('respond');
  });

  it('is empty for bodies it does not know', () => {
    expect(textOf(input(undefined))).toBe('');
    expect(textOf(input({ file: 'x' }))).toBe('');
    expect(textOf(input({ messages: [{ role: 'system', content: 'only system' }] }))).toBe('');
  });
});

describe('textOf, output', () => {
  it('reads OpenAI chat choices', () => {
    const body = {
      choices: [
        { index: 0, message: { role: 'assistant', content: 'first' } },
        { index: 1, message: { role: 'assistant', content: 'second' } },
      ],
    };
    expect(textOf(output(body))).toBe('first\nsecond');
  });

  it('reads completions choices', () => {
    expect(textOf(output({ choices: [{ text: 'completed' }] }))).toBe('completed');
  });

  it('reads Anthropic content blocks, skipping tool use', () => {
    const body = {
      type: 'message',
      role: 'assistant',
      content: [
        { type: 'text', text: 'answer' },
        { type: 'tool_use', id: 't', name: 'f', input: {} },
      ],
    };
    expect(textOf(output(body))).toBe('answer');
  });

  it('reads Responses API output messages', () => {
    const body = {
      output: [
        { type: 'reasoning', summary: [] },
        { type: 'message', content: [{ type: 'output_text', text: 'responded' }] },
      ],
    };
    expect(textOf(output(body))).toBe('responded');
  });

  it('reads Bedrock Converse and Gemini answers', () => {
    expect(
      textOf(output({ output: { message: { role: 'assistant', content: [{ text: 'converse' }] } } })),
    ).toBe('converse');
    expect(textOf(output({ candidates: [{ content: { parts: [{ text: 'gemini' }] } }] }))).toBe('gemini');
  });

  it('falls back to the raw text for other bodies', () => {
    expect(textOf(output(undefined, 'plain text answer'))).toBe('plain text answer');
    expect(textOf(output({ data: [{ embedding: [0.1] }] }, '{"data":[]}'))).toBe('{"data":[]}');
    expect(textOf(output(undefined))).toBe('');
  });
});
