import { describe, expect, it } from 'vitest';
import {
  answerMediaUnits,
  DEFAULT_IMAGE_MODEL,
  formFile,
  formRequest,
  measuredMediaUnits,
  mediaEndpoint,
  mediaModel,
  requestMediaUnits,
} from './media-units.js';

// Request and answer shapes as OpenAI documents them (API reference, images and audio).
const dalle3Request = {
  model: 'dall-e-3',
  prompt: 'A cute baby sea otter',
  n: 1,
  size: '1024x1792',
  quality: 'hd',
  response_format: 'b64_json',
};
const imageAnswer = {
  created: 1_713_833_628,
  data: [{ b64_json: 'iVBORw0KGgo=' }, { url: 'https://example.invalid/img.png', revised_prompt: 'x' }],
};
const gptImageAnswer = {
  created: 1_713_833_628,
  data: [{ b64_json: 'iVBORw0KGgo=' }],
  usage: {
    total_tokens: 100,
    input_tokens: 50,
    output_tokens: 50,
    input_tokens_details: { text_tokens: 10, image_tokens: 40 },
  },
};

describe('mediaEndpoint', () => {
  it('names image, speech and transcription paths, also under an Azure deployment', () => {
    expect(mediaEndpoint('/images/generations')).toBe('images');
    expect(mediaEndpoint('/images/edits')).toBe('images');
    expect(mediaEndpoint('/images/variations')).toBe('images');
    expect(mediaEndpoint('/openai/deployments/dalle/images/generations')).toBe('images');
    expect(mediaEndpoint('/audio/speech')).toBe('speech');
    expect(mediaEndpoint('/audio/transcriptions')).toBe('transcription');
    expect(mediaEndpoint('/audio/translations')).toBe('transcription');
    expect(mediaEndpoint('/chat/completions')).toBeUndefined();
    expect(mediaEndpoint('/images/generations/extra')).toBeUndefined();
  });
});

describe('requestMediaUnits', () => {
  it("reads n, quality and size of an image request, else the model's defaults", () => {
    expect(requestMediaUnits('/images/generations', dalle3Request)).toEqual({
      images: 1,
      imageQuality: 'hd',
      imageSize: '1024x1792',
    });
    expect(requestMediaUnits('/images/generations', { model: 'dall-e-3', prompt: 'x' })).toEqual({
      images: 1,
      imageQuality: 'standard',
      imageSize: '1024x1024',
    });
    expect(requestMediaUnits('/images/generations', { prompt: 'x', n: 3, size: '256x256' })).toEqual({
      images: 3,
      imageQuality: 'standard',
      imageSize: '256x256',
    });
    expect(requestMediaUnits('/images/generations', { model: 'gpt-image-1', prompt: 'x', n: 2 })).toEqual({
      images: 2,
      imageQuality: 'auto',
      imageSize: 'auto',
    });
    // a model with no documented defaults: only what the request says
    expect(requestMediaUnits('/images/generations', { model: 'flux-pro', prompt: 'x' })).toEqual({
      images: 1,
      imageQuality: undefined,
      imageSize: undefined,
    });
  });

  it('counts no image for an n OpenAI would refuse', () => {
    for (const n of [0, -1, 1.5, '2', Number.NaN]) {
      expect(requestMediaUnits('/images/generations', { model: 'dall-e-2', prompt: 'x', n })).toBeUndefined();
    }
  });

  it("counts a speech input's characters as code points", () => {
    expect(
      requestMediaUnits('/audio/speech', { model: 'tts-1', input: 'Hello world', voice: 'alloy' }),
    ).toEqual({ characters: 11 });
    // é is one code point, the emoji one code point of two UTF-16 units
    expect(requestMediaUnits('/audio/speech', { model: 'tts-1', input: 'é😀', voice: 'alloy' })).toEqual({
      characters: 2,
    });
    expect(requestMediaUnits('/audio/speech', { model: 'tts-1', voice: 'alloy' })).toBeUndefined();
    expect(requestMediaUnits('/audio/speech', { model: 'tts-1', input: 42 })).toBeUndefined();
  });

  it('says nothing for other paths and bodies that are not objects', () => {
    expect(requestMediaUnits('/chat/completions', dalle3Request)).toBeUndefined();
    expect(requestMediaUnits('/images/generations', undefined)).toBeUndefined();
    expect(requestMediaUnits('/images/generations', [dalle3Request])).toBeUndefined();
    // transcription requests are multipart: their units come from the answer
    expect(requestMediaUnits('/audio/transcriptions', { model: 'whisper-1' })).toBeUndefined();
  });
});

describe('answerMediaUnits', () => {
  it("counts an image answer's data items", () => {
    expect(answerMediaUnits('/images/generations', imageAnswer)).toEqual({ images: 2 });
    expect(answerMediaUnits('/images/generations', gptImageAnswer)).toEqual({ images: 1 });
    expect(answerMediaUnits('/images/generations', { created: 1, data: [] })).toEqual({ images: 0 });
    expect(answerMediaUnits('/images/generations', { error: { message: 'x' } })).toBeUndefined();
  });

  it('reads transcription seconds from usage or verbose_json duration, a started second counting', () => {
    expect(
      answerMediaUnits('/audio/transcriptions', { text: 'hi', usage: { type: 'duration', seconds: 9 } }),
    ).toEqual({ audioSeconds: 9 });
    expect(
      answerMediaUnits('/audio/translations', {
        task: 'translate',
        language: 'english',
        duration: 8.470000267028809,
        text: 'hi',
        segments: [],
      }),
    ).toEqual({ audioSeconds: 9 });
    // gpt-4o-transcribe reports tokens, not seconds: priced by its token usage instead
    expect(
      answerMediaUnits('/audio/transcriptions', {
        text: 'hi',
        usage: { type: 'tokens', input_tokens: 14, output_tokens: 45, total_tokens: 59 },
      }),
    ).toBeUndefined();
    expect(answerMediaUnits('/audio/transcriptions', { text: 'hi' })).toBeUndefined();
    expect(answerMediaUnits('/audio/transcriptions', { text: 'hi', duration: -1 })).toBeUndefined();
  });
});

describe('measuredMediaUnits', () => {
  it("charges the answer's image count at the request's quality and size", () => {
    expect(measuredMediaUnits('/images/generations', { ...dalle3Request, n: 2 }, imageAnswer)).toEqual({
      images: 2,
      imageQuality: 'hd',
      imageSize: '1024x1792',
    });
    // the answer not at hand (a body larger than the capture): what the request asked for
    expect(measuredMediaUnits('/images/generations', { ...dalle3Request, n: 2 }, undefined)).toEqual({
      images: 2,
      imageQuality: 'hd',
      imageSize: '1024x1792',
    });
    expect(
      measuredMediaUnits('/audio/transcriptions', undefined, {
        text: 'x',
        usage: { type: 'duration', seconds: 3 },
      }),
    ).toEqual({ audioSeconds: 3 });
    expect(measuredMediaUnits('/chat/completions', { model: 'gpt-4o' }, { choices: [] })).toBeUndefined();
  });
});

describe('formRequest', () => {
  it("reads an image upload's model, n, size and quality from the form's head, not the file", async () => {
    const form = new FormData();
    form.append('model', 'dall-e-2');
    form.append('n', '3');
    form.append('size', '512x512');
    form.append('prompt', 'add a hat');
    form.append('image', new Blob([new Uint8Array([1, 2, 3])], { type: 'image/png' }), 'otter.png');
    const request = new Request('http://x.invalid', { method: 'POST', body: form });
    const contentType = request.headers.get('content-type') ?? '';
    const body = Buffer.from(await request.arrayBuffer());
    const fields = formRequest(contentType, body);
    expect(fields).toEqual({ model: 'dall-e-2', n: 3, size: '512x512' });
    expect(requestMediaUnits('/images/edits', fields)).toEqual({
      images: 3,
      imageQuality: 'standard',
      imageSize: '512x512',
    });
    // a field cut by the capture is left out
    const cut = body.subarray(0, body.indexOf('512x512') + 3);
    expect(formRequest(contentType, cut)).toEqual({ model: 'dall-e-2', n: 3 });
    expect(formRequest('application/json', body)).toBeUndefined();
  });
});

/** A form as fetch encodes it: its content type and body bytes. */
async function encoded(form: FormData): Promise<{ contentType: string; body: Buffer }> {
  const request = new Request('http://x.invalid', { method: 'POST', body: form });
  return {
    contentType: request.headers.get('content-type') ?? '',
    body: Buffer.from(await request.arrayBuffer()),
  };
}

describe('formFile', () => {
  it("gives the `file` part's bytes exactly, binary as it is, only when the part is whole", async () => {
    // bytes that look like CRLF and a dash line inside the file must not end it
    const audio = Buffer.concat([Buffer.from([0, 255, 13, 10, 45, 45, 13, 10]), Buffer.alloc(1_000, 7)]);
    const form = new FormData();
    form.append('model', 'whisper-1');
    form.append('file', new Blob([audio], { type: 'audio/wav' }), 'clip.wav');
    form.append('response_format', 'text');
    const { contentType, body } = await encoded(form);
    expect(formFile(contentType, body)?.equals(audio)).toBe(true);
    // the head of a streamed upload: the file is cut, so there is none
    expect(formFile(contentType, body.subarray(0, body.indexOf(audio) + 500))).toBeUndefined();
    expect(formFile('application/json', body)).toBeUndefined();
    expect(formFile(contentType, undefined)).toBeUndefined();
    const noFile = new FormData();
    noFile.append('model', 'whisper-1');
    const without = await encoded(noFile);
    expect(formFile(without.contentType, without.body)).toBeUndefined();
  });
});

describe('mediaModel', () => {
  it('prices an image request naming no model as dall-e-2, only when its fields were read', () => {
    expect(DEFAULT_IMAGE_MODEL).toBe('dall-e-2');
    expect(mediaModel('/images/generations', '', { prompt: 'x' })).toBe('dall-e-2');
    expect(mediaModel('/images/edits', '', { n: 2 })).toBe('dall-e-2');
    expect(mediaModel('/openai/deployments/d/images/variations', '', {})).toBe('dall-e-2');
    // the model a request names wins, from the caller or from the fields
    expect(mediaModel('/images/generations', 'gpt-image-1', { prompt: 'x' })).toBe('gpt-image-1');
    expect(mediaModel('/images/edits', '', { model: 'dall-e-3' })).toBe('dall-e-3');
    // fields not read (a streamed upload), or not an image path: no default
    expect(mediaModel('/images/edits', '', undefined)).toBe('');
    expect(mediaModel('/audio/transcriptions', '', {})).toBe('');
    expect(mediaModel('/audio/speech', '', { input: 'hi' })).toBe('');
    expect(mediaModel('/chat/completions', '', { messages: [] })).toBe('');
  });
});
