import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { RequestAccess } from '../access/index.js';
import { BodyCapture } from '../upstream/capture.js';
import { createContext, type RequestContext } from './request-context.js';
import { heldUpload, keepUpload, UploadCapture } from './upload-capture.js';

function context(path: string, access: boolean): RequestContext {
  const req = { method: 'POST', url: `/v1${path}`, headers: {} } as IncomingMessage;
  const ctx = createContext(req, 'http', 'test', 16, true);
  // Only its presence matters here: control-plane mode.
  if (access) ctx.access = {} as RequestAccess;
  return ctx;
}

describe('UploadCapture', () => {
  it('keeps the whole body beside the usual head, up to its bound', () => {
    const capture = new UploadCapture(4, 10);
    capture.push(Buffer.from('abc'));
    capture.push(Buffer.from('defg'));
    expect(capture.head().toString()).toBe('abcd');
    expect(capture.whole()?.toString()).toBe('abcdefg');
    capture.push(Buffer.from('hij'));
    expect(capture.whole()?.toString()).toBe('abcdefghij');
    // past the bound nothing is kept (the call fails on its body limit anyway)
    capture.push(Buffer.from('k'));
    expect(capture.whole()).toBeUndefined();
    expect(capture.total).toBe(11);
  });

  it('keeps nothing once sealed, like the capture it extends', () => {
    const capture = new UploadCapture(64, 1_000);
    capture.push(Buffer.from('abc'));
    capture.seal();
    capture.push(Buffer.from('late'));
    expect(capture.whole()?.toString()).toBe('abc');
  });
});

describe('keepUpload', () => {
  it('keeps transcription and translation uploads in control-plane mode only', () => {
    for (const path of ['/audio/transcriptions', '/audio/translations']) {
      const ctx = context(path, true);
      keepUpload(ctx, 16, 1_000);
      expect(ctx.facts.request).toBeInstanceOf(UploadCapture);
      ctx.facts.request.push(Buffer.from('RIFF....'));
      expect(heldUpload(ctx)?.toString()).toBe('RIFF....');
    }
    // chat, images, speech, and a standalone gateway (nothing priced): the usual capture only
    for (const [path, access] of [
      ['/chat/completions', true],
      ['/images/edits', true],
      ['/audio/speech', true],
      ['/audio/transcriptions', false],
    ] as const) {
      const ctx = context(path, access);
      keepUpload(ctx, 16, 1_000);
      expect(ctx.facts.request).not.toBeInstanceOf(UploadCapture);
      expect(ctx.facts.request).toBeInstanceOf(BodyCapture);
      ctx.facts.request.push(Buffer.from('{}'));
      expect(heldUpload(ctx)).toBeUndefined();
    }
  });

  it('a body a stage already read is the held upload', () => {
    const ctx = context('/audio/transcriptions', true);
    ctx.body = Buffer.from('whole');
    keepUpload(ctx, 16, 1_000);
    expect(ctx.facts.request).not.toBeInstanceOf(UploadCapture);
    expect(heldUpload(ctx)?.toString()).toBe('whole');
  });
});
