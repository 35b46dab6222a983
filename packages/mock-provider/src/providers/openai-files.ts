// OpenAI files (multipart upload, list, retrieve, content, delete) and audio transcriptions.
import type { RouteContext, StoredFile } from '../context.js';
import { openaiError } from '../errors.js';
import { sendBody, sendError, sendJson } from '../http-io.js';
import { nowSeconds, randomId } from '../text.js';
import type { MultipartPart } from '../types.js';

/** The parsed parts, or undefined after answering 400 (not multipart, or malformed). */
export function requireParts(ctx: RouteContext): MultipartPart[] | undefined {
  if (ctx.record.parts) return ctx.record.parts;
  const type = ctx.req.headers['content-type'] ?? '(none)';
  const message = /^multipart\/form-data/i.test(type)
    ? 'Could not parse multipart form data.'
    : `Invalid Content-Type header (${type}), expected multipart/form-data.`;
  sendError(ctx, openaiError(400, message, 'invalid_request_error'));
  return undefined;
}

export function field(parts: readonly MultipartPart[], name: string): string | undefined {
  const part = parts.find((p) => p.name === name && p.filename === undefined);
  return part?.data.toString('utf8');
}

export const missing = (name: string) =>
  openaiError(
    400,
    `'${name}' is a required property`,
    'invalid_request_error',
    'missing_required_parameter',
    name,
  );

function fileObject(file: StoredFile) {
  return {
    id: file.id,
    object: 'file',
    bytes: file.bytes,
    created_at: file.createdAt,
    filename: file.filename,
    purpose: file.purpose,
    status: 'processed',
    expires_at: null,
    status_details: null,
  };
}

export function handleUploadFile(ctx: RouteContext): void {
  const parts = requireParts(ctx);
  if (!parts) return;
  const purpose = field(parts, 'purpose');
  const upload = parts.find((p) => p.name === 'file' && p.filename !== undefined);
  if (!upload) {
    sendError(ctx, missing('file'));
    return;
  }
  if (!purpose) {
    sendError(ctx, missing('purpose'));
    return;
  }
  const file: StoredFile = {
    id: randomId('file-', 12),
    filename: upload.filename ?? 'file',
    purpose,
    bytes: upload.data.length,
    createdAt: nowSeconds(),
    data: upload.data,
  };
  ctx.state.files.set(file.id, file);
  sendJson(ctx, 200, fileObject(file));
}

export function handleListFiles(ctx: RouteContext): void {
  const purpose = ctx.query.get('purpose');
  const data = [...ctx.state.files.values()]
    .reverse()
    .filter((f) => purpose === null || f.purpose === purpose)
    .map(fileObject);
  sendJson(ctx, 200, {
    object: 'list',
    data,
    has_more: false,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
  });
}

function findFile(ctx: RouteContext): StoredFile | undefined {
  const file = ctx.state.files.get(ctx.params.id ?? '');
  if (!file)
    sendError(
      ctx,
      openaiError(404, `No such File object: ${ctx.params.id}`, 'invalid_request_error', null, 'id'),
    );
  return file;
}

export function handleGetFile(ctx: RouteContext): void {
  const file = findFile(ctx);
  if (file) sendJson(ctx, 200, fileObject(file));
}

export function handleFileContent(ctx: RouteContext): void {
  const file = findFile(ctx);
  if (file) sendBody(ctx.res, 200, 'application/octet-stream', file.data);
}

export function handleDeleteFile(ctx: RouteContext): void {
  const file = findFile(ctx);
  if (!file) return;
  ctx.state.files.delete(file.id);
  sendJson(ctx, 200, { id: file.id, object: 'file', deleted: true });
}

/** The transcript names the upload so tests can check which bytes reached the mock. */
export function handleTranscription(ctx: RouteContext): void {
  const parts = requireParts(ctx);
  if (!parts) return;
  const audio = parts.find((p) => p.name === 'file' && p.filename !== undefined);
  if (!audio) {
    sendError(ctx, missing('file'));
    return;
  }
  if (!field(parts, 'model')) {
    sendError(ctx, missing('model'));
    return;
  }
  const text = `Transcript of ${audio.filename} (${audio.data.length} bytes).`;
  const format = field(parts, 'response_format') ?? 'json';
  if (format === 'text') {
    sendBody(ctx.res, 200, 'text/plain; charset=utf-8', text);
    return;
  }
  if (format === 'verbose_json') {
    const duration = audio.data.length / 16000;
    // OpenAI reports whisper's billed seconds as `usage` (whole seconds, rounded up here).
    sendJson(ctx, 200, {
      task: 'transcribe',
      language: 'english',
      duration,
      text,
      segments: [],
      usage: { type: 'duration', seconds: Math.ceil(duration) },
    });
    return;
  }
  sendJson(ctx, 200, { text });
}
