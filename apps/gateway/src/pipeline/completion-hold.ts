// Holds the bytes that complete a response inside the gateway until the request's event is kept on
// disk (issue 23 item 4): a client never holds a complete answer whose event a crash could lose.
//
// One mechanism for every relay (forward, config relay, cache replay, errors, MCP): the response's
// write()/end() mark the moment its last bytes are being written (the write reaching a declared
// content-length, else end(): the terminating chunk, or the head of a body-less answer), and from
// then on the writes reaching its socket are queued instead of written. Node sees them written
// (their callbacks run), so the response finishes and closes as before, the pipeline settles and
// publishes, and once the publisher reports the event kept (the turn's one journal write), the
// queue goes out. Writes before that moment go straight through: streams stream as before.
// Why the socket and not cork(): end() fully uncorks its socket, and 'finish' waits for the write
// callbacks, which a cork would hold back, while the event is only published after 'close'.
import { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Publish } from './settle.js';

const HOLD = Symbol('aigw.completionHold');
const SOCKET_HOLD = Symbol('aigw.socketHold');

interface Hold {
  /** The response's completing bytes are being written: its socket writes are queued. */
  capturing: boolean;
  released: boolean;
  /** Body bytes written, counted against a declared content-length. */
  bytes: number;
  /** The socket whose queue holds this response's bytes (counted in its `holds`). */
  socket: HeldSocket | undefined;
  /** The socket armed for this response's completing bytes. */
  armed: HeldSocket | undefined;
}

/** node:http's own fields, read to know where the answer completes (stable since node 0.x). */
interface HeldResponse extends ServerResponse {
  [HOLD]: Hold;
  _header: string | null;
  _contentLength: number | null;
  chunkedEncoding: boolean;
}

interface SocketHold {
  /** Responses whose bytes are queued here and not yet released. */
  holds: number;
  /** Queued writes, as pairs `data, encoding`, in order. */
  queue: unknown[];
  /** node:http ended the connection while bytes were held: end it after them. */
  endPending: boolean;
  /** The connection was destroyed without an error (an idle close) while bytes were held. */
  destroyPending: boolean;
  /** The wrappers are installed (only while a response completes or bytes are held). */
  armed: boolean;
  readonly write: (...args: unknown[]) => boolean;
  readonly end: (...args: unknown[]) => Socket;
  readonly destroy: (err?: Error) => Socket;
}

interface HeldSocket extends Socket {
  [SOCKET_HOLD]: SocketHold;
  _httpMessage: HeldResponse | null;
}

export interface CompletionHold {
  /** The request's event is kept (or will never be): send what was held. Idempotent. */
  release(): void;
}

/**
 * Holds `res`'s completing bytes until `release()`. Call before anything is written; pipelined
 * responses on the connection queue behind held bytes.
 */
export function holdCompletion(res: ServerResponse): CompletionHold {
  const held = res as HeldResponse;
  const hold: Hold = { capturing: false, released: false, bytes: 0, socket: undefined, armed: undefined };
  held[HOLD] = hold;
  held.write = heldWrite as never;
  held.end = heldEnd as never;
  return { release: () => release(hold) };
}

/** `publish`, then the hold released once the publisher reports the event kept. */
export function keptPublish(
  publish: Publish,
  whenKept: (done: () => void) => void,
  hold: CompletionHold,
): Publish {
  return (event) => {
    try {
      publish(event);
    } finally {
      whenKept(hold.release);
    }
  };
}

const write = ServerResponse.prototype.write;
const end = ServerResponse.prototype.end;

// Explicit parameters, not rest ones: this may run for every chunk of a stream.
function heldWrite(this: HeldResponse, chunk: unknown, encoding?: unknown, callback?: unknown): boolean {
  const hold = this[HOLD];
  if (!hold.capturing && !hold.released) {
    const declared = declaredLength(this);
    if (declared !== undefined) {
      hold.bytes += byteLength(chunk, encoding);
      if (hold.bytes >= declared) capture(this, hold);
    } else if (this._header !== null && this._header !== undefined) {
      // Chunked (or ended by the connection's close): only end() completes it, so the stream's
      // further chunks skip this wrapper.
      this.write = write;
    }
  }
  return write.call(this, chunk, encoding as BufferEncoding, callback as never);
}

function heldEnd(
  this: HeldResponse,
  chunk?: unknown,
  encoding?: unknown,
  callback?: unknown,
): ServerResponse {
  const hold = this[HOLD];
  if (!hold.released && !hold.capturing) capture(this, hold);
  return end.call(this, chunk, encoding as BufferEncoding, callback as never) as ServerResponse;
}

/** From now on the response's socket writes are queued: its socket is armed (at once, or once it
 * has one: a pipelined response gets it when the answers before it are done). */
function capture(res: HeldResponse, hold: Hold): void {
  hold.capturing = true;
  const socket = res.socket as HeldSocket | null;
  if (socket) arm(socket, hold);
  else res.once('socket', (s: HeldSocket) => arm(s, hold));
}

/** The body length the head declares, undefined for a chunked (or close-delimited) answer. */
function declaredLength(res: HeldResponse): number | undefined {
  if (res._header !== null && res._header !== undefined) {
    return res.chunkedEncoding || res._contentLength === null ? undefined : res._contentLength;
  }
  // No head yet: write() makes it from the headers set so far.
  const value = res.getHeader('content-length');
  return value === undefined ? undefined : Number(value);
}

function byteLength(chunk: unknown, encoding: unknown): number {
  if (typeof chunk === 'string') {
    return Buffer.byteLength(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  }
  return (chunk as Uint8Array | null)?.byteLength ?? 0;
}

// The wrappers are own properties swapped in and out (never deleted: that would slow every later
// property read of the socket), so a stream's chunks and idle connections pay nothing.
function arm(socket: HeldSocket, hold: Hold): void {
  if (hold.released) return;
  hold.armed = socket;
  let state = socket[SOCKET_HOLD];
  if (state === undefined) {
    state = {
      holds: 0,
      queue: [],
      endPending: false,
      destroyPending: false,
      armed: false,
      write: socket.write as SocketHold['write'],
      end: socket.end as SocketHold['end'],
      destroy: socket.destroy as SocketHold['destroy'],
    };
    socket[SOCKET_HOLD] = state;
  }
  if (state.armed) return;
  state.armed = true;
  socket.write = socketWrite as never;
  socket.end = socketEnd as never;
  socket.destroy = socketDestroy as never;
}

function disarm(socket: HeldSocket, state: SocketHold): void {
  state.armed = false;
  socket.write = state.write as never;
  socket.end = state.end as never;
  socket.destroy = state.destroy as never;
}

function socketWrite(this: HeldSocket, data: unknown, encoding?: unknown, callback?: unknown): boolean {
  const state = this[SOCKET_HOLD];
  const hold = this._httpMessage?.[HOLD];
  if (hold?.capturing && hold.socket === undefined) {
    hold.socket = this;
    state.holds++;
  }
  if (state.holds === 0) return state.write.call(this, data, encoding, callback);
  if (typeof encoding === 'function') {
    callback = encoding;
    encoding = undefined;
  }
  state.queue.push(data, encoding);
  // Written as far as node:http is concerned: the response finishes, so its request settles and
  // publishes (the release waits for that). A write that fails later destroys the socket.
  if (typeof callback === 'function') process.nextTick(callback as () => void);
  return true;
}

function socketEnd(this: HeldSocket, ...args: unknown[]): Socket {
  const state = this[SOCKET_HOLD];
  if (state.holds === 0) return state.end.apply(this, args);
  // node:http ends a connection it will not reuse once the response finished: after the held bytes.
  if (args.length > 0 && typeof args[0] !== 'function') state.queue.push(args[0], args[1]);
  state.endPending = true;
  return this;
}

// node:http sees a held response as finished, so its connection as idle: server.close() (a drain)
// destroys idle connections. Without an error that waits for the held bytes, then ends the
// connection after them; with one (the client is gone) it happens at once.
function socketDestroy(this: HeldSocket, err?: Error): Socket {
  const state = this[SOCKET_HOLD];
  if (state.holds === 0 || err) return state.destroy.call(this, err);
  state.destroyPending = true;
  return this;
}

function release(hold: Hold): void {
  if (hold.released) return;
  hold.released = true;
  hold.capturing = false;
  const socket = hold.socket ?? hold.armed;
  if (socket === undefined) return;
  const state = socket[SOCKET_HOLD];
  if (hold.socket !== undefined) state.holds--;
  if (state.holds > 0) return;
  // Nothing held on this connection any more: its writes go straight out again.
  if (state.armed) disarm(socket, state);
  const queue = state.queue;
  state.queue = [];
  // A client that left meanwhile: nothing to send it.
  if (socket.destroyed) return;
  if (queue.length > 2) socket.cork();
  for (let i = 0; i < queue.length; i += 2) {
    const encoding = queue[i + 1];
    if (encoding === undefined) state.write.call(socket, queue[i]);
    else state.write.call(socket, queue[i], encoding);
  }
  if (queue.length > 2) socket.uncork();
  if (state.destroyPending) {
    state.destroyPending = false;
    state.endPending = false;
    state.end.call(socket);
    if (socket.writableFinished) state.destroy.call(socket);
    else socket.once('finish', () => state.destroy.call(socket));
  } else if (state.endPending) {
    state.endPending = false;
    state.end.call(socket);
  }
}
