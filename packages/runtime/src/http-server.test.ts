import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { listen } from './http-server.js';

function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('listen().close()', () => {
  it('lets an in-flight request finish, then refuses new connections', async () => {
    let release: () => void = () => undefined;
    let arrived: () => void = () => undefined;
    const inFlight = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const server = await listen(
      (_req, res) => {
        arrived();
        release = () => res.end('done');
      },
      0,
      '127.0.0.1',
    );
    const pending = get(server.port, '/slow');
    await inFlight;
    const closed = server.close(5_000);
    await expect(get(server.port, '/new')).rejects.toThrow(/ECONNREFUSED/);
    release();
    expect(await pending).toEqual({ status: 200, body: 'done' });
    await closed;
    expect(server.server.listening).toBe(false);
  });

  it('cuts requests still running when the grace period ends', async () => {
    const server = await listen(() => undefined, 0, '127.0.0.1');
    const pending = get(server.port, '/never');
    await new Promise((resolve) => setTimeout(resolve, 50));
    await server.close(100);
    await expect(pending).rejects.toThrow(/socket hang up|ECONNRESET/);
  });
});
