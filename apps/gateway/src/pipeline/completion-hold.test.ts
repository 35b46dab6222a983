// The completion hold against a real node:http server and a raw client socket: the client never has
// a complete answer before release(), bytes before the completing ones are not held, and the
// response still finishes and closes (the pipeline settles on 'close').
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { type CompletionHold, holdCompletion } from './completion-hold.js';

type Handler = (req: IncomingMessage, res: ServerResponse, hold: CompletionHold) => void;

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

async function serve(handler: Handler): Promise<number> {
  server = createServer((req, res) => handler(req, res, holdCompletion(res)));
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** Raw HTTP/1.1 client: resolves with everything received once `complete` says the text is whole. */
function exchange(
  port: number,
  request: string,
  complete: (text: string) => boolean,
  onData?: (text: string, socket: Socket) => void,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      onData?.(text, socket);
      if (complete(text)) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.on('error', reject);
    // Resolved already when complete; otherwise the connection went before the answer did.
    socket.on('close', () => reject(new Error(`closed before the answer was complete: ${text}`)));
  });
}

const GET = 'GET / HTTP/1.1\r\nhost: x\r\n\r\n';

/** Releases the hold a few turns after the response closed, recording that it did. */
function releaseAfterClose(res: ServerResponse, hold: CompletionHold, state: { released: boolean }) {
  res.once('close', () => {
    setTimeout(() => {
      state.released = true;
      hold.release();
    }, 20);
  });
}

describe('completion hold', () => {
  test('a content-length answer written before end() is held until release, and the response still closes', async () => {
    const state = { released: false, closed: false };
    const port = await serve((_req, res, hold) => {
      res.once('close', () => {
        state.closed = true;
      });
      releaseAfterClose(res, hold, state);
      res.writeHead(200, ['content-length', '5', 'content-type', 'text/plain']);
      res.write(Buffer.from('hel'));
      res.write(Buffer.from('lo'));
      res.end();
    });
    const text = await exchange(port, GET, (t) => t.endsWith('hello'));
    expect(state.closed).toBe(true);
    expect(state.released).toBe(true);
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
  });

  test('end(body) and error answers are held', async () => {
    const state = { released: false };
    const port = await serve((_req, res, hold) => {
      releaseAfterClose(res, hold, state);
      res.writeHead(404, { 'content-type': 'application/json', 'content-length': '2' });
      res.end('{}');
    });
    const text = await exchange(port, GET, (t) => t.endsWith('{}'));
    expect(state.released).toBe(true);
    expect(text).toMatch(/^HTTP\/1\.1 404 /);
  });

  test('a stream streams: chunks go out at once, only the terminating chunk waits', async () => {
    const state = { released: false, firstChunkWhileHeld: false };
    let finish: (() => void) | undefined;
    const port = await serve((_req, res, hold) => {
      releaseAfterClose(res, hold, state);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
      finish = () => {
        res.write('data: 2\n\n');
        res.end();
      };
    });
    const text = await exchange(
      port,
      GET,
      (t) => t.endsWith('0\r\n\r\n'),
      (t) => {
        if (t.includes('data: 1') && finish) {
          state.firstChunkWhileHeld = !state.released;
          const f = finish;
          finish = undefined;
          f();
        }
      },
    );
    expect(state.firstChunkWhileHeld).toBe(true);
    expect(state.released).toBe(true);
    expect(text).toContain('data: 2');
  });

  test('a body-less answer and a connection node:http closes are held, then ended after the bytes', async () => {
    const state = { released: false, receivedWhileHeld: false };
    const port = await serve((_req, res, hold) => {
      releaseAfterClose(res, hold, state);
      res.writeHead(204);
      res.end();
    });
    let ended = false;
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () =>
        socket.write('GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n'),
      );
      let received = '';
      socket.on('data', (chunk) => {
        received += chunk.toString('latin1');
        if (!state.released) state.receivedWhileHeld = true;
      });
      socket.on('end', () => {
        ended = true;
        resolve(received);
      });
      socket.on('error', reject);
    });
    expect(ended).toBe(true);
    expect(state.receivedWhileHeld).toBe(false);
    expect(text).toMatch(/^HTTP\/1\.1 204 /);
  });

  test('pipelined answers keep their order behind held bytes', async () => {
    let n = 0;
    const holds: CompletionHold[] = [];
    const port = await serve((_req, res, hold) => {
      const body = `answer-${++n}`;
      holds.push(hold);
      res.writeHead(200, { 'content-length': String(body.length) });
      res.end(body);
      // Released in reverse: the second answer must still come after the first.
      if (holds.length === 2)
        setTimeout(() => {
          for (const h of holds.reverse()) h.release();
        }, 20);
    });
    const text = await exchange(port, GET + GET, (t) => t.includes('answer-2'));
    expect(text.indexOf('answer-1')).toBeGreaterThan(0);
    expect(text.indexOf('answer-2')).toBeGreaterThan(text.indexOf('answer-1'));
  });

  test('a drain (server.close() destroying idle connections) waits for held bytes', async () => {
    let held: CompletionHold | undefined;
    const port = await serve((_req, res, hold) => {
      res.once('close', () => {
        held = hold;
        // node:http sees the connection idle now: close() destroys it.
        server?.close();
        setTimeout(() => hold.release(), 20);
      });
      res.writeHead(200, { 'content-length': '7' });
      res.end('drained');
    });
    const text = await exchange(port, GET, (t) => t.endsWith('drained'));
    expect(held).toBeDefined();
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
  });

  test('a client that left while its answer was held: nothing reached its socket, release throws nothing and the connection closes', async () => {
    let clientGone: () => void = () => undefined;
    const serverSawEnd = new Promise<void>((resolve) => {
      clientGone = resolve;
    });
    let answered: { hold: CompletionHold; socket: Socket; bytesWritten: number } | undefined;
    const port = await serve((req, res, hold) => {
      req.socket.once('end', clientGone);
      res.writeHead(200, { 'content-length': '2' });
      res.end('ok');
      answered = { hold, socket: req.socket, bytesWritten: req.socket.bytesWritten };
    });
    const socket = connect(port, '127.0.0.1', () => socket.write(GET));
    while (!answered) await new Promise((resolve) => setTimeout(resolve, 5));
    socket.destroy();
    await serverSawEnd;
    // Without the hold, head and body are in the socket (bytesWritten counts its buffer) by now.
    expect(answered.bytesWritten).toBe(0);
    const closed = new Promise<void>((resolve) => answered?.socket.once('close', () => resolve()));
    expect(() => answered?.hold.release()).not.toThrow();
    // The connection node:http ended behind the held bytes is closed once they went.
    await closed;
    expect(answered.socket.destroyed).toBe(true);
  });
});
