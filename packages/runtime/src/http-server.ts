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

export async function listen(
  handler: RequestListener,
  port: number,
  host: string,
  options: ListenOptions = {},
): Promise<RunningServer> {
  const server = createServer(
    { keepAliveTimeout: 5_000, connectionsCheckingInterval: checkingInterval(options), ...options },
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

/**
 * How often node:http looks for connections past their head or request deadline: Node checks every
 * 30 s by default, so a stalled client held its socket up to 30 s past the deadline. A quarter of the
 * head deadline (1 s to 30 s) keeps the overshoot small for the cost of a walk over the connections.
 */
function checkingInterval(options: ListenOptions): number {
  const deadline = Math.min(options.headersTimeout ?? 60_000, options.requestTimeout || 300_000);
  return Math.min(30_000, Math.max(1_000, Math.floor(deadline / 4)));
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
