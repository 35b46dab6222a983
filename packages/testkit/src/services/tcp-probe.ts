// Readiness probes that speak just enough of a wire protocol to know a server is serving.
import { connect } from 'node:net';

/**
 * Connects, optionally writes `send`, and resolves true once the bytes received so far satisfy
 * `accept`. Rejects on connection errors and after `timeoutMs`.
 */
export function tcpProbe(
  port: number,
  accept: (received: string) => boolean,
  send?: string,
  timeoutMs = 2_000,
): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let received = '';
    const finish = (error?: Error) => {
      socket.destroy();
      if (error) reject(error);
      else resolve(true);
    };
    socket.setTimeout(timeoutMs, () => finish(new Error(`no answer on port ${port} within ${timeoutMs} ms`)));
    socket.once('error', (err) => finish(err));
    socket.once('connect', () => {
      if (send !== undefined) socket.write(send);
    });
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
      if (accept(received)) finish();
    });
    socket.once('end', () =>
      finish(new Error(`port ${port} closed the connection: ${received.slice(0, 200)}`)),
    );
  });
}

/** Redis answers PING with +PONG once it has loaded its data and serves commands. */
export const redisReady = (port: number) => tcpProbe(port, (text) => text.startsWith('+PONG'), 'PING\r\n');

/** NATS greets every client with INFO; with JetStream up, INFO says so. */
export const natsReady = (port: number) =>
  tcpProbe(
    port,
    (text) => text.startsWith('INFO ') && text.includes('\r\n') && /"jetstream":\s*true/.test(text),
  );
