// Reads a whole request body, up to a limit (413 beyond): for providers that sign or read the body,
// and for configs, whose targets may each need it again.
import type { IncomingMessage } from 'node:http';
import { gatewayError } from '../errors.js';

export function readBody(req: IncomingMessage, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.removeAllListeners('data');
        req.resume();
        reject(gatewayError('payload_too_large', `The request body is larger than ${max} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
