// multipart/form-data parsing over a fully buffered body (binary safe, no dependency).
import type { MultipartPart } from './types.js';

export class MultipartError extends Error {
  override readonly name = 'MultipartError';
}

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');

/** The boundary of a multipart content-type, or undefined when it is not multipart/form-data. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  if (!contentType || !/^multipart\/form-data\b/i.test(contentType)) return undefined;
  const params = headerParams(contentType);
  return params.boundary;
}

/** Parameters of a header value such as `form-data; name="file"; filename="a b.txt"`. */
export function headerParams(value: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /;\s*([^=;\s]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)/g;
  for (const m of value.matchAll(re)) {
    const key = m[1]!.toLowerCase();
    let raw = m[2]!.trim();
    if (raw.startsWith('"')) raw = raw.slice(1, -1).replace(/\\(.)/g, '$1');
    if (key.endsWith('*')) {
      // RFC 5987 form: charset'lang'percent-encoded; it wins over the plain parameter.
      const encoded = raw.split("'").slice(2).join("'");
      out[key.slice(0, -1)] = decodeURIComponent(encoded);
    } else if (out[key] === undefined) {
      out[key] = raw;
    }
  }
  return out;
}

export function parseMultipart(body: Buffer, boundary: string): MultipartPart[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const between = Buffer.concat([CRLF, delimiter]);
  const parts: MultipartPart[] = [];
  let pos = body.indexOf(delimiter);
  if (pos < 0) throw new MultipartError('multipart body has no boundary delimiter');
  for (;;) {
    pos += delimiter.length;
    if (body[pos] === 0x2d && body[pos + 1] === 0x2d) return parts;
    if (body[pos] !== 0x0d || body[pos + 1] !== 0x0a)
      throw new MultipartError('malformed multipart delimiter');
    pos += 2;
    const headerEnd = body.indexOf(HEADER_END, pos);
    if (headerEnd < 0) throw new MultipartError('multipart part has no header terminator');
    const headers = parsePartHeaders(body.subarray(pos, headerEnd).toString('utf8'));
    const dataStart = headerEnd + HEADER_END.length;
    const next = body.indexOf(between, dataStart);
    if (next < 0) throw new MultipartError('multipart body is not terminated');
    parts.push(toPart(headers, Buffer.from(body.subarray(dataStart, next))));
    pos = next + CRLF.length;
  }
}

function parsePartHeaders(block: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of block.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new MultipartError(`malformed multipart header line: ${line}`);
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

function toPart(headers: Record<string, string>, data: Buffer): MultipartPart {
  const disposition = headers['content-disposition'];
  if (!disposition || !/^form-data\b/i.test(disposition)) {
    throw new MultipartError('multipart part lacks Content-Disposition: form-data');
  }
  const params = headerParams(disposition);
  if (params.name === undefined) throw new MultipartError('multipart part has no name');
  const part: MultipartPart = { name: params.name, headers, data };
  if (params.filename !== undefined) part.filename = params.filename;
  if (headers['content-type'] !== undefined) part.contentType = headers['content-type'];
  return part;
}
