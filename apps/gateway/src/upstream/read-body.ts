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
    // A body that came in one read (the usual JSON request) is that chunk: no copy of it.
    req.on('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The whole body (declared length checked first) and, for a JSON content type, its parsed value. */
export async function readJsonBody(
  req: IncomingMessage,
  max: number,
): Promise<{ readonly body: Buffer; readonly json: unknown }> {
  if (Number(req.headers['content-length'] ?? 0) > max) {
    throw gatewayError('payload_too_large', `The request body is larger than ${max} bytes`);
  }
  const body = await readBody(req, max);
  if (body.length === 0 || !req.headers['content-type']?.includes('json')) return { body, json: undefined };
  try {
    return { body, json: JSON.parse(body.toString('utf8')) as unknown };
  } catch {
    throw gatewayError('invalid_json', 'The request body is not valid JSON');
  }
}
