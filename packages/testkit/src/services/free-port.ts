// Free loopback TCP ports for servers we start ourselves.
import { createServer } from 'node:net';

/** Asks the kernel for an unused port on 127.0.0.1. Racy by nature: launchers retry on a bind failure. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('could not read the port of a probe listener'));
      });
    });
  });
}
