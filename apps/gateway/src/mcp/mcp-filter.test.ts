import { describe, expect, it } from 'vitest';
import { filterMessage, listFilter } from './mcp-filter.js';
import { answerErrorCode, type Disabled, readMessages, refusal } from './mcp-messages.js';

const disabled: Disabled = {
  tools: new Set(['rm']),
  resources: new Set(['file:///secret']),
  prompts: new Set(['leak']),
};
const toolsList = (id: number) => ({
  jsonrpc: '2.0',
  id,
  result: { tools: [{ name: 'add' }, { name: 'rm' }, { name: 'forecast' }], nextCursor: 'c' },
});

function run(type: string, chunks: string[], ids?: Map<string | number, 'tools' | 'resources' | 'prompts'>) {
  const filter = listFilter(disabled, ids)({ 'content-type': type });
  if (!filter) return undefined;
  const out = chunks.flatMap((c) => filter.push(Buffer.from(c, 'utf8')));
  return Buffer.concat([...out, ...filter.end()]).toString('utf8');
}

describe('MCP messages', () => {
  it('finds requests and refuses disabled tools, prompts and resources only', () => {
    const read = readMessages([
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'rm' } },
      { jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'add' } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'file:///secret' } },
      { jsonrpc: '2.0', id: 4, method: 'prompts/get', params: { name: 'leak' } },
    ]);
    expect(read?.batch).toBe(true);
    expect(read?.requests.map((r) => [r.id, r.method, r.target])).toEqual([
      [1, 'tools/call', 'rm'],
      ['b', 'tools/call', 'add'],
      [3, 'resources/read', 'file:///secret'],
      [4, 'prompts/get', 'leak'],
    ]);
    expect(read?.requests.map((r) => refusal(r, disabled) !== undefined)).toEqual([true, false, true, true]);
    expect(readMessages('nope')).toBeUndefined();
    expect(readMessages({ jsonrpc: '2.0', id: 1, method: 'tools/list' })?.batch).toBe(false);
  });
});

describe('MCP list filter', () => {
  it('drops disabled tools from the list result it was asked about, and nothing else', () => {
    const ids = new Map([[7, 'tools' as const]]);
    const filtered = filterMessage(toolsList(7), disabled, ids) as ReturnType<typeof toolsList>;
    expect(filtered.result.tools.map((t) => t.name)).toEqual(['add', 'forecast']);
    expect(filtered.result.nextCursor).toBe('c');
    const other = toolsList(8);
    expect(filterMessage(other, disabled, ids)).toBe(other);
  });

  it('rewrites a JSON body, and leaves one without disabled items byte for byte', () => {
    const ids = new Map([[1, 'tools' as const]]);
    const body = JSON.stringify(toolsList(1));
    const out = run('application/json', [body.slice(0, 10), body.slice(10)], ids);
    expect(JSON.parse(out ?? '').result.tools.map((t: { name: string }) => t.name)).toEqual([
      'add',
      'forecast',
    ]);
    const clean = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'add' }] } });
    expect(run('application/json', [clean], ids)).toBe(clean);
    expect(run('application/json', ['{not json'], ids)).toBe('{not json');
  });

  it('rewrites SSE events split anywhere, keeping other events and fields as sent', () => {
    const ids = new Map([[2, 'tools' as const]]);
    const stream =
      'event: message\nid: e1\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"p":"é"}}\n\n' +
      `event: message\nid: e2\ndata: ${JSON.stringify(toolsList(2))}\n\n`;
    const bytes = Buffer.from(stream, 'utf8');
    // Split inside the two-byte "é" and inside the second event.
    const cut = bytes.indexOf(Buffer.from('é', 'utf8')) + 1;
    const parts = [bytes.subarray(0, cut), bytes.subarray(cut, cut + 40), bytes.subarray(cut + 40)];
    const filter = listFilter(disabled, ids)({ 'content-type': 'text/event-stream' });
    const out = Buffer.concat([
      ...parts.flatMap((p) => filter?.push(p) ?? []),
      ...(filter?.end() ?? []),
    ]).toString('utf8');
    const events = out.split('\n\n').filter(Boolean);
    expect(events[0]).toBe(stream.split('\n\n')[0]);
    expect(events[1]?.startsWith('event: message\nid: e2\ndata: ')).toBe(true);
    const data = JSON.parse(events[1]?.split('data: ')[1] ?? '');
    expect(data.result.tools.map((t: { name: string }) => t.name)).toEqual(['add', 'forecast']);
  });

  it('on a GET stream (no request ids) filters anything shaped like a list result', () => {
    const out = run('text/event-stream', [`data: ${JSON.stringify(toolsList(9))}\n\n`]);
    expect(out).not.toContain('"rm"');
    expect(out).toContain('"forecast"');
  });
});

describe('answerErrorCode', () => {
  it('reads the error code of the answer to a request in JSON or SSE', () => {
    const error = { jsonrpc: '2.0', id: 5, error: { code: -32601, message: 'no' } };
    expect(answerErrorCode(Buffer.from(JSON.stringify(error)), 5)).toBe(-32601);
    expect(answerErrorCode(Buffer.from(`event: message\ndata: ${JSON.stringify(error)}\n\n`), 5)).toBe(
      -32601,
    );
    expect(answerErrorCode(Buffer.from(JSON.stringify(toolsList(5))), 5)).toBe(0);
    expect(answerErrorCode(Buffer.from(JSON.stringify(error)), 6)).toBe(0);
    expect(answerErrorCode(undefined, 5)).toBe(0);
  });
});
