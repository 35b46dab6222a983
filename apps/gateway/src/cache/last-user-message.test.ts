import { describe, expect, it } from 'vitest';
import { lastUserMessage, splitLastUserMessage } from './last-user-message.js';

describe('lastUserMessage', () => {
  it('reads OpenAI chat bodies: string content and text parts', () => {
    const body = {
      messages: [
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'reply' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'second' },
            { type: 'text', text: 'part' },
          ],
        },
        { role: 'tool', content: 'tool output', tool_call_id: 'c1' },
      ],
    };
    expect(lastUserMessage(body)).toBe('second\npart');
  });

  it('reads Anthropic messages, Bedrock Converse and Gemini contents', () => {
    expect(
      lastUserMessage({
        system: 'be brief',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'hola' }] }],
      }),
    ).toBe('hola');
    expect(lastUserMessage({ messages: [{ role: 'user', content: [{ text: 'converse' }] }] })).toBe(
      'converse',
    );
    expect(lastUserMessage({ contents: [{ role: 'user', parts: [{ text: 'gemini' }] }] })).toBe('gemini');
  });

  it('has none when the last user message holds anything but text', () => {
    expect(
      lastUserMessage({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'what is in this image?' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
            ],
          },
        ],
      }),
    ).toBeUndefined();
    expect(
      lastUserMessage({
        messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'x' }] }],
      }),
    ).toBeUndefined();
    expect(lastUserMessage({ messages: [{ role: 'assistant', content: 'only me' }] })).toBeUndefined();
    expect(lastUserMessage({ prompt: 'completions body' })).toBeUndefined();
    expect(lastUserMessage('text')).toBeUndefined();
    expect(lastUserMessage(null)).toBeUndefined();
  });

  it('returns the body without that text, leaving the original untouched', () => {
    const body = { model: 'm', messages: [{ role: 'user', content: 'q', name: 'n' }] };
    const split = splitLastUserMessage(body);
    expect(split).toEqual({
      text: 'q',
      rest: { model: 'm', messages: [{ role: 'user', content: null, name: 'n' }] },
    });
    expect(body.messages[0]?.content).toBe('q');
  });
});
