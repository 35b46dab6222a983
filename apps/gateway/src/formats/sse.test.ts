import { describe, expect, it } from 'vitest';
import { parseSse, type SseEvent, SseReader } from './sse.js';

const data = (events: readonly SseEvent[]) => events.map((e) => e.data);

describe('parseSse', () => {
  it('joins the data lines of one event with LF and ignores comments', () => {
    const text = ': keep-alive\ndata: {"a":\ndata: 1}\n\n:another\ndata:x\n\n';
    expect(parseSse(text)).toEqual([
      { type: 'message', data: '{"a":\n1}', id: '' },
      { type: 'message', data: 'x', id: '' },
    ]);
  });

  it('reads LF, CRLF and CR line ends alike', () => {
    const events = ['data: a\n\n', 'data: b\r\n\r\n', 'data: c\r\r', 'data: d\r\ndata: e\r\r\n'];
    expect(data(parseSse(events.join('')))).toEqual(['a', 'b', 'c', 'd\ne']);
  });

  it('keeps the event type per event and the id across events', () => {
    const text = 'event: message_start\nid: 7\ndata: one\n\ndata: two\n\nid\ndata: three\n\n';
    expect(parseSse(text)).toEqual([
      { type: 'message_start', data: 'one', id: '7' },
      { type: 'message', data: 'two', id: '7' },
      { type: 'message', data: 'three', id: '' },
    ]);
  });

  it('follows the field rules: one leading space stripped, no colon means an empty value', () => {
    const text = 'data:  two spaces\n\ndata\n\ndata:\ndata:\n\nevent: x\n\ndata: after\n\nunknown: field\n\n';
    // `event: x` alone dispatches nothing and its type does not leak into the next event.
    expect(parseSse(text)).toEqual([
      { type: 'message', data: ' two spaces', id: '' },
      { type: 'message', data: '', id: '' },
      { type: 'message', data: '\n', id: '' },
      { type: 'message', data: 'after', id: '' },
    ]);
  });

  it('drops an event left open at the end unless asked to dispatch it', () => {
    expect(data(parseSse('data: a\n\ndata: b'))).toEqual(['a']);
    expect(data(parseSse('data: a\n\ndata: b', { dispatchAtEnd: true }))).toEqual(['a', 'b']);
    expect(data(parseSse('data: a\n\ndata: b\n', { dispatchAtEnd: true }))).toEqual(['a', 'b']);
  });

  it('strips one leading byte order mark and decodes UTF-8 bytes', () => {
    expect(data(parseSse(Buffer.from('\uFEFFdata: é\n\n')))).toEqual(['é']);
  });
});

describe('SseReader', () => {
  const stream = [
    '\uFEFF: hello\r\n',
    'event: message_start\r\ndata: {"type":"message_start",\r\ndata: "n":"ü€😀"}\r\n\r\n',
    'data: a\r\rdata: b\n\ndata: c\r\n\r\n',
    'id: 3\ndata: {"usage":{"prompt_tokens":3,"completion_tokens":2}}\n\n',
    'data: [DONE]\r\n\r\n',
  ].join('');
  const whole = parseSse(stream);

  it('gives the events of a whole buffer whichever way the bytes are cut', () => {
    const bytes = Buffer.from(stream);
    expect(whole).toHaveLength(6);
    // Every cut in two and in three (every CRLF and every UTF-8 character is cut somewhere).
    for (let i = 0; i <= bytes.length; i++) {
      const reader = new SseReader();
      const got = [...reader.push(bytes.subarray(0, i)), ...reader.push(bytes.subarray(i)), ...reader.end()];
      expect(got).toEqual(whole);
    }
    for (let i = 0; i < bytes.length; i += 3) {
      for (let j = i; j < bytes.length; j += 7) {
        const reader = new SseReader();
        const got = [
          ...reader.push(bytes.subarray(0, i)),
          ...reader.push(bytes.subarray(i, j)),
          ...reader.push(bytes.subarray(j)),
        ];
        expect(got).toEqual(whole);
      }
    }
  });

  it('hands each event out as soon as its blank line arrives, one byte at a time too', () => {
    const reader = new SseReader();
    const seen: Array<[number, string]> = [];
    const bytes = Buffer.from('data: x\n\ndata: y\r\n\r\n');
    for (let i = 0; i < bytes.length; i++) {
      for (const event of reader.push(bytes.subarray(i, i + 1))) seen.push([i, event.data]);
    }
    // The CR of the final CRLF already ends the blank line: the event goes out before its LF.
    expect(seen).toEqual([
      [8, 'x'],
      [18, 'y'],
    ]);
  });

  it('does not treat the LF of a CRLF cut between chunks as a blank line', () => {
    const reader = new SseReader();
    expect(reader.push('data: a\r')).toEqual([]);
    expect(reader.push('\ndata: b\r')).toEqual([]);
    expect(data(reader.push('\n\r\n'))).toEqual(['a\nb']);
  });

  it('dispatches the open event at the end only when asked', () => {
    const strict = new SseReader();
    strict.push('data: a');
    expect(strict.end()).toEqual([]);
    const lenient = new SseReader({ dispatchAtEnd: true });
    lenient.push('data: a');
    expect(data(lenient.end())).toEqual(['a']);
  });
});
