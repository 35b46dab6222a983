import { describe, expect, it, vi } from 'vitest';
import { BodyCapture } from './capture.js';
import { estimateUsage, readResponseFacts } from './usage.js';

const json = (value: unknown) => Buffer.from(JSON.stringify(value));

describe('readResponseFacts', () => {
  it('reads OpenAI, Anthropic, Bedrock and Gemini JSON usage', () => {
    expect(
      readResponseFacts(
        'application/json',
        json({
          model: 'gpt-4o-2024',
          usage: {
            prompt_tokens: 10,
            completion_tokens: 5,
            total_tokens: 15,
            prompt_tokens_details: { cached_tokens: 4 },
          },
        }),
        Buffer.alloc(0),
        'POST',
      ),
    ).toEqual({
      model: 'gpt-4o-2024',
      usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15, cachedInputTokens: 4, estimated: false },
    });
    expect(
      readResponseFacts(
        'application/json',
        json({ usage: { input_tokens: 7, output_tokens: 3 } }),
        Buffer.alloc(0),
        'POST',
      ).usage,
    ).toMatchObject({
      inputTokens: 7,
      outputTokens: 3,
      totalTokens: 10,
    });
    expect(
      readResponseFacts(
        'application/json',
        json({ usage: { inputTokens: 2, outputTokens: 1, totalTokens: 3 } }),
        Buffer.alloc(0),
        'POST',
      ).usage?.totalTokens,
    ).toBe(3);
    expect(
      readResponseFacts(
        'application/json; charset=utf-8',
        json({ usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 6, totalTokenCount: 10 } }),
        Buffer.alloc(0),
        'POST',
      ).usage,
    ).toMatchObject({ inputTokens: 4, outputTokens: 6, totalTokens: 10 });
  });

  it('reads usage from the final chunks of OpenAI and Anthropic streams', () => {
    const openai = [
      'data: {"model":"gpt-x","choices":[{"delta":{"content":"hi"}}]}',
      'data: {"model":"gpt-x","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}',
      'data: [DONE]',
      '',
    ].join('\n\n');
    expect(readResponseFacts('text/event-stream', undefined, Buffer.from(openai), 'POST')).toEqual({
      model: 'gpt-x',
      usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5, cachedInputTokens: 0, estimated: false },
    });
    const anthropic = [
      'event: message_start\ndata: {"type":"message_start","message":{"model":"claude","usage":{"input_tokens":9,"output_tokens":1}}}',
      'event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":12}}',
      'event: message_stop\ndata: {"type":"message_stop"}',
    ].join('\n\n');
    expect(
      readResponseFacts('text/event-stream', undefined, Buffer.from(anthropic), 'POST').usage,
    ).toMatchObject({
      inputTokens: 9,
      outputTokens: 12,
      totalTokens: 21,
    });
  });

  it('skips content chunks whose only usage is `"usage":null`, and nothing else', () => {
    const chunk = (content: string) =>
      `data: {"id":"c1","model":"gpt-early","choices":[{"delta":{"content":"${content}"}}],"usage":null}`;
    const stream = [
      chunk('a'),
      'data: {"model":"gpt-x","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}',
      chunk('b'),
      'data: [DONE]',
      '',
    ].join('\n\n');
    expect(readResponseFacts('text/event-stream', undefined, Buffer.from(stream), 'POST')).toEqual({
      model: 'gpt-early',
      usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5, cachedInputTokens: 0, estimated: false },
    });
    // Usage beside a null one, under another key or spelled with escapes is still read.
    const beside = [
      'data: {"usage":null,"usageMetadata":{"promptTokenCount":4,"candidatesTokenCount":6}}',
      'data: {"usage":null,"u\\u0073ageMetadata":{"promptTokenCount":1,"totalTokenCount":9}}',
      'data: {"choices":[{"usage":null}],"usage":{"completion_tokens":7}}',
      '',
    ].join('\n\n');
    expect(readResponseFacts('text/event-stream', undefined, Buffer.from(beside), 'POST').usage).toEqual({
      inputTokens: 1,
      outputTokens: 7,
      totalTokens: 9,
      cachedInputTokens: 0,
      estimated: false,
    });
    const onlyNull = [chunk('a'), chunk('b'), ''].join('\n\n');
    expect(readResponseFacts('text/event-stream', undefined, Buffer.from(onlyNull), 'POST')).toEqual({
      model: 'gpt-early',
      usage: undefined,
    });
  });

  it('parses only the lines that can carry usage or the model: one for an OpenAI stream', () => {
    const chunk = (content: string) =>
      `data: {"id":"c1","model":"gpt-x","choices":[{"delta":{"content":"${content}"}}],"usage":null}`;
    const stream = [
      ...Array.from({ length: 20 }, (_, i) => chunk(`part ${i}`)),
      'data: {"id":"c1","model":"gpt-x","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}',
      'data: [DONE]',
      '',
    ].join('\n\n');
    const parse = vi.spyOn(JSON, 'parse');
    try {
      expect(readResponseFacts('text/event-stream', undefined, Buffer.from(stream), 'POST')).toEqual({
        model: 'gpt-x',
        usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5, cachedInputTokens: 0, estimated: false },
      });
      expect(parse).toHaveBeenCalledTimes(1);
    } finally {
      parse.mockRestore();
    }
  });

  it('finds the same usage and model in one pass over the text as line by line', () => {
    // A `\\u` anywhere sends the text line by line: an SSE comment line carrying one is the reference.
    const byLine = (text: string) => `${text}\n: \\u0000\n`;
    let seed = 7;
    const pick = <T>(values: readonly T[]): T => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return values[seed % values.length] as T;
    };
    const lines = [
      'data: {"model":"m-a","choices":[{"delta":{"content":"x"}}],"usage":null}',
      'data: {"choices":[{"delta":{"content":"message usage sage"}}],"usage":null}',
      'data: {"model":"m-b","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}',
      'data: {"usage":null,"usageMetadata":{"promptTokenCount":4,"candidatesTokenCount":6}}',
      'data: {"type":"message_start","message":{"model":"claude","usage":{"input_tokens":9}}}',
      'data: {"type":"message_delta","usage":{"output_tokens":12}}',
      'data: {"choices":[{"usage":null}],"usage":{"completion_tokens":7}}\r',
      'event: message_delta',
      'data: [DONE]',
      'data: {"model":',
      'ge":null,"model":"cut"}',
      '',
    ];
    for (let i = 0; i < 300; i++) {
      const text = Array.from({ length: 1 + (i % 9) }, () => pick(lines)).join(pick(['\n', '\n\n']));
      const fast = readResponseFacts('text/event-stream', undefined, Buffer.from(text), 'POST');
      expect(fast).toEqual(
        readResponseFacts('text/event-stream', undefined, Buffer.from(byLine(text)), 'POST'),
      );
    }
  });

  it('reads an event whose JSON spans several data: lines, and CR or CRLF line ends', () => {
    const multiline = [
      'data: {"model":"gpt-x","choices":[],',
      'data: "usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}',
      '',
      'data: [DONE]',
      '',
    ].join('\n');
    const expected = {
      model: 'gpt-x',
      usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5, cachedInputTokens: 0, estimated: false },
    };
    expect(readResponseFacts('text/event-stream', undefined, Buffer.from(multiline), 'POST')).toEqual(
      expected,
    );
    for (const eol of ['\r', '\r\n']) {
      const stream = `: comment${eol}${multiline.split('\n').join(eol)}`;
      expect(readResponseFacts('text/event-stream', undefined, Buffer.from(stream), 'POST')).toEqual(
        expected,
      );
    }
  });

  it('counts Anthropic prompt-cache reads and writes inside inputTokens, as pricing expects', () => {
    const body = json({
      type: 'message',
      model: 'claude-x',
      usage: {
        input_tokens: 20,
        cache_read_input_tokens: 100,
        cache_creation_input_tokens: 30,
        output_tokens: 5,
      },
    });
    expect(readResponseFacts('application/json', body, Buffer.alloc(0), 'POST').usage).toEqual({
      inputTokens: 150,
      outputTokens: 5,
      totalTokens: 155,
      cachedInputTokens: 100,
      cacheWriteInputTokens: 30,
      estimated: false,
    });
  });

  it("reads Gemini's streamGenerateContent answer without alt=sse (a JSON array of chunks)", () => {
    const chunks = json([
      { candidates: [{ content: { parts: [{ text: 'a' }] } }], usageMetadata: { promptTokenCount: 4 } },
      {
        candidates: [{ content: { parts: [{ text: 'b' }] } }],
        usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 2, totalTokenCount: 6 },
        modelVersion: 'gemini-2.0-flash',
      },
    ]);
    expect(readResponseFacts('application/json', chunks, Buffer.alloc(0), 'POST')).toEqual({
      model: 'gemini-2.0-flash',
      usage: { inputTokens: 4, outputTokens: 2, totalTokens: 6, cachedInputTokens: 0, estimated: false },
    });
  });

  it('finds usage at the end of a JSON body too large to keep whole', () => {
    const capture = new BodyCapture(1024);
    const body = json({
      data: [{ embedding: Array.from({ length: 5000 }, () => 0.5) }],
      usage: { prompt_tokens: 8, total_tokens: 8 },
    });
    for (let i = 0; i < body.length; i += 1000) capture.push(body.subarray(i, i + 1000));
    expect(capture.truncated).toBe(true);
    expect(
      readResponseFacts('application/json', capture.complete(), capture.tail(), 'POST').usage,
    ).toMatchObject({
      inputTokens: 8,
      totalTokens: 8,
    });
  });

  it('returns no usage for bodies without any, and estimates from sizes on request', () => {
    expect(
      readResponseFacts('application/json', json({ object: 'list' }), Buffer.alloc(0), 'POST').usage,
    ).toBeUndefined();
    expect(
      readResponseFacts('application/octet-stream', Buffer.from('x'), Buffer.alloc(0), 'POST').usage,
    ).toBeUndefined();
    expect(estimateUsage(40, 9)).toEqual({
      inputTokens: 10,
      outputTokens: 3,
      totalTokens: 13,
      cachedInputTokens: 0,
      estimated: true,
    });
  });
});

describe('BodyCapture', () => {
  it('keeps the head up to the limit and a bounded tail', () => {
    const capture = new BodyCapture(10);
    capture.push(Buffer.from('0123456789abcdef'));
    for (let i = 0; i < 40; i++) capture.push(Buffer.alloc(1024, 'x'));
    capture.push(Buffer.from('THE END'));
    expect(capture.head().toString()).toBe('0123456789');
    expect(capture.truncated).toBe(true);
    expect(capture.complete()).toBeUndefined();
    expect(capture.tail().toString().endsWith('THE END')).toBe(true);
    expect(capture.tail().length).toBeLessThan(18 * 1024);
    expect(capture.total).toBe(16 + 40 * 1024 + 7);
  });

  it('gives the same bytes for head and tail while the body fits both', () => {
    const capture = new BodyCapture(1024);
    expect(capture.tail().length).toBe(0);
    capture.push(Buffer.from('data: 1\n\n'));
    capture.push(Buffer.from('data: 2\n\n'));
    expect(capture.tail().toString()).toBe('data: 1\n\ndata: 2\n\n');
    expect(capture.head().toString()).toBe('data: 1\n\ndata: 2\n\n');
    const cut = new BodyCapture(4);
    cut.push(Buffer.from('abc'));
    cut.push(Buffer.from('def'));
    expect(cut.head().toString()).toBe('abcd');
    expect(cut.tail().toString()).toBe('abcdef');
  });
});
