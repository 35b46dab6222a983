// An HTTP listener that drains on close: stop accepting, finish in-flight requests, then cut.
import { createServer, type RequestListener, type Server, type ServerOptions } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RunningServer {
  readonly server: Server;
  readonly port: number;
  /** Stop accepting, let in-flight requests finish for up to `graceMs`, then close what is left. */
  close(graceMs: number): Promise<void>;
}

/** Limits against slow or oversized clients (Node's own defaults when omitted). */
export type ListenOptions = Pick<
  ServerOptions,
  'maxHeaderSize' | 'headersTimeout' | 'requestTimeout' | 'keepAliveTimeout'
>;

/**
 * How often node:http looks for connections past their head or request deadline. Node's default
 * is 30 s, which let a stalled client keep its socket up to 30 s past the deadline (a trickled
 * head with a 500 ms deadline answered after 17 s); once a second keeps every app's deadlines to
 * the second, for a walk over the open connections.
 */
const DEADLINE_SWEEP_MS = 1_000;

export async function listen(
  handler: RequestListener,
  port: number,
  host: string,
  options: ListenOptions = {},
): Promise<RunningServer> {
  const server = createServer(
    { keepAliveTimeout: 5_000, connectionsCheckingInterval: DEADLINE_SWEEP_MS, ...options },
    handler,
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  return { server, port: bound, close: (graceMs) => drain(server, graceMs) };
}

function drain(server: Server, graceMs: number): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    // Idle keep-alive connections would otherwise keep close() waiting until they time out.
    server.closeIdleConnections();
  });
}
