// The two local servers the pinned-connection tests dial: an upstream that records what reached it
// and answers the redirects a test asks for, and a canary that must never be reached.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';

export interface Seen {
  path: string;
  host: string;
}

export interface TestServers {
  readonly port: number;
  readonly canaryPort: number;
  /** Requests that reached the upstream, in order. */
  readonly seen: Seen[];
  canaryRequests(): number;
  close(): Promise<void>;
}

export async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

export async function close(server: net.Server): Promise<void> {
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/**
 * Starts both on 127.0.0.1. `redirects` maps an upstream path to where it redirects (302), given the
 * canary's port; any other path answers `ok`.
 */
export async function startTestServers(
  redirects: (canaryPort: number) => Readonly<Record<string, string>>,
): Promise<TestServers> {
  let canaryRequests = 0;
  const canary = http.createServer((_req, res) => {
    canaryRequests += 1;
    res.end('stolen');
  });
  const canaryPort = await listen(canary);
  const locations = redirects(canaryPort);
  const seen: Seen[] = [];
  const upstream = http.createServer((req, res) => {
    seen.push({ path: req.url ?? '', host: req.headers.host ?? '' });
    const location = locations[req.url ?? ''];
    if (location !== undefined) res.writeHead(302, { location }).end('moved');
    else res.end('ok');
  });
  const port = await listen(upstream);
  return {
    port,
    canaryPort,
    seen,
    canaryRequests: () => canaryRequests,
    close: async () => {
      await Promise.all([close(upstream), close(canary)]);
    },
  };
}

/**
 * A TCP server on 127.0.0.1 that keeps the first bytes of each connection (a TLS ClientHello, with
 * its SNI) and hangs up: `run` gets its port, the server is closed afterwards.
 */
export async function withHelloCatcher(
  run: (port: number, hellos: Buffer[]) => Promise<void>,
): Promise<void> {
  const hellos: Buffer[] = [];
  const tcp = net.createServer((socket) => {
    socket.once('data', (chunk: Buffer) => {
      hellos.push(chunk);
      socket.destroy();
    });
  });
  const port = await listen(tcp);
  try {
    await run(port, hellos);
  } finally {
    await close(tcp);
  }
}
