// The requested model, wherever the API puts it.
import { describe, expect, it } from 'vitest';
import { requestModel } from './request-model.js';

describe('requestModel', () => {
  it('reads a JSON body, a multipart form field and a Bedrock path', () => {
    expect(requestModel('/chat/completions', 'application/json', undefined, { model: 'gpt-4o' })).toBe(
      'gpt-4o',
    );
    const form =
      '--b\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\nRIFF\r\n' +
      '--b\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper-1\r\n--b--\r\n';
    expect(
      requestModel('/audio/transcriptions', 'multipart/form-data; boundary=b', Buffer.from(form), undefined),
    ).toBe('whisper-1');
    expect(requestModel('/model/anthropic.claude-3%3A0/converse', undefined, undefined, undefined)).toBe(
      'anthropic.claude-3:0',
    );
  });

  it('reads a Gemini / Vertex model from the path when the body names none', () => {
    expect(
      requestModel(
        '/v1/projects/p/locations/us-central1/publishers/google/models/gemini-2.0-flash:streamGenerateContent',
        'application/json',
        undefined,
        { contents: [] },
      ),
    ).toBe('gemini-2.0-flash');
    expect(requestModel('/v1beta/models/gemini-1.5-pro:generateContent', undefined, undefined, {})).toBe(
      'gemini-1.5-pro',
    );
  });

  it('is empty when the request names no model', () => {
    expect(requestModel('/files', 'application/json', undefined, { purpose: 'batch' })).toBe('');
    expect(requestModel('/models', undefined, undefined, undefined)).toBe('');
  });
});
