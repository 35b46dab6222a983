// Turning an incoming request into a RecordedRequest, and recordings into JSON for /_mock/requests.
import type { IncomingMessage } from 'node:http';
import { MultipartError, multipartBoundary, parseMultipart } from './multipart.js';
import type { ProviderName, RecordedRequest } from './types.js';

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function splitUrl(url: string): { rawPath: string; rawQuery: string } {
  const q = url.indexOf('?');
  return q < 0 ? { rawPath: url, rawQuery: '' } : { rawPath: url.slice(0, q), rawQuery: url.slice(q + 1) };
}

function decodePath(rawPath: string): string {
  try {
    return decodeURIComponent(rawPath);
  } catch {
    return rawPath;
  }
}

export function queryRecord(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key);
    out[key] = values.length === 1 ? values[0]! : values;
  }
  return out;
}

function parseJson(body: Buffer, contentType: string | undefined): unknown {
  if (body.length === 0) return undefined;
  const looksJson = /json/i.test(contentType ?? '') || /^\s*[[{]/.test(body.subarray(0, 64).toString('utf8'));
  if (!looksJson) return undefined;
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

export interface RecordInput {
  req: IncomingMessage;
  body: Buffer;
  requestId: string;
  upgrade?: boolean;
}

/** Provider and params are filled in once the route is known. */
export function buildRecord({ req, body, requestId, upgrade = false }: RecordInput): RecordedRequest {
  const url = req.url ?? '/';
  const { rawPath, rawQuery } = splitUrl(url);
  const record: RecordedRequest = {
    requestId,
    method: req.method ?? 'GET',
    url,
    path: decodePath(rawPath),
    query: queryRecord(new URLSearchParams(rawQuery)),
    headers: { ...req.headers },
    body,
    provider: 'mock' as ProviderName,
    params: {},
    upgrade,
    receivedAt: Date.now(),
  };
  const json = parseJson(body, req.headers['content-type']);
  if (json !== undefined) record.json = json;
  const boundary = multipartBoundary(req.headers['content-type']);
  if (boundary) {
    try {
      record.parts = parseMultipart(body, boundary);
    } catch (err) {
      if (!(err instanceof MultipartError)) throw err;
    }
  }
  return record;
}

/** JSON view of a recording: the body as UTF-8 text and base64, part data as base64. */
export function serializeRecord(record: RecordedRequest): Record<string, unknown> {
  return {
    ...record,
    body: undefined,
    bodyText: record.body.toString('utf8'),
    bodyBase64: record.body.toString('base64'),
    parts: record.parts?.map((p) => ({
      ...p,
      data: undefined,
      dataBase64: p.data.toString('base64'),
      size: p.data.length,
    })),
  };
}
