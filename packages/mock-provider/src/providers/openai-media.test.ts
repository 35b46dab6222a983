import { describe, expect, it } from 'vitest';
import { json, OPENAI_AUTH, useMock } from '../../test/helpers.js';
import { MOCK_PNG } from './openai-media.js';

const mock = useMock();

function post(path: string, body: unknown) {
  return fetch(`${mock().url}${path}`, {
    method: 'POST',
    headers: { ...OPENAI_AUTH, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('OpenAI images and speech', () => {
  it('answers n images as b64_json (a PNG) or url, with usage for gpt-image-1 only', async () => {
    const res = await post('/v1/images/generations', { model: 'dall-e-2', prompt: 'an otter', n: 3 });
    expect(res.status).toBe(200);
    const three = await json(res);
    expect(three.data).toHaveLength(3);
    expect(Buffer.from(three.data[0].b64_json, 'base64')).toEqual(MOCK_PNG);
    expect(MOCK_PNG.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(three.usage).toBeUndefined();
    expect(typeof three.created).toBe('number');

    const dalle3 = await json(
      await post('/v1/images/generations', { model: 'dall-e-3', prompt: 'an otter', response_format: 'url' }),
    );
    expect(dalle3.data).toEqual([
      { url: expect.stringMatching(/^https:\/\/.+\.png$/), revised_prompt: 'an otter' },
    ]);

    const gptImage = await json(
      await post('/v1/images/generations', { model: 'gpt-image-1', prompt: 'an otter', n: 2 }),
    );
    expect(gptImage.data).toHaveLength(2);
    expect(gptImage.usage).toMatchObject({ output_tokens: 544 });
    expect(gptImage.usage.total_tokens).toBe(gptImage.usage.input_tokens + 544);
  });

  it('refuses an image request without a prompt or with an n out of range', async () => {
    const noPrompt = await post('/v1/images/generations', { model: 'dall-e-2' });
    expect(noPrompt.status).toBe(400);
    expect((await json(noPrompt)).error.param).toBe('prompt');
    const tooMany = await post('/v1/images/generations', { model: 'dall-e-3', prompt: 'x', n: 2 });
    expect(tooMany.status).toBe(400);
    expect((await json(tooMany)).error.param).toBe('n');
  });

  it('answers image edits and variations of an uploaded image, n of them', async () => {
    const form = new FormData();
    form.append('model', 'dall-e-2');
    form.append('n', '2');
    form.append('prompt', 'add a hat');
    form.append('image', new Blob([MOCK_PNG], { type: 'image/png' }), 'otter.png');
    const edit = await fetch(`${mock().url}/v1/images/edits`, {
      method: 'POST',
      headers: OPENAI_AUTH,
      body: form,
    });
    expect(edit.status).toBe(200);
    expect((await json(edit)).data).toHaveLength(2);
    form.delete('prompt');
    const noPrompt = await fetch(`${mock().url}/v1/images/edits`, {
      method: 'POST',
      headers: OPENAI_AUTH,
      body: form,
    });
    expect(noPrompt.status).toBe(400);
    const variation = await fetch(`${mock().url}/v1/images/variations`, {
      method: 'POST',
      headers: OPENAI_AUTH,
      body: form,
    });
    expect((await json(variation)).data).toHaveLength(2);
  });

  it('speaks 16 audio bytes per input character in the asked format', async () => {
    const mp3 = await post('/v1/audio/speech', { model: 'tts-1', input: 'Hello é', voice: 'alloy' });
    expect(mp3.status).toBe(200);
    expect(mp3.headers.get('content-type')).toBe('audio/mpeg');
    expect((await mp3.arrayBuffer()).byteLength).toBe(7 * 16);
    const wav = await post('/v1/audio/speech', {
      model: 'tts-1',
      input: 'hi',
      voice: 'alloy',
      response_format: 'wav',
    });
    expect(wav.headers.get('content-type')).toBe('audio/wav');
    const noVoice = await post('/v1/audio/speech', { model: 'tts-1', input: 'hi' });
    expect(noVoice.status).toBe(400);
    expect((await json(noVoice)).error.param).toBe('voice');
  });

  it('reports verbose_json transcription seconds as usage', async () => {
    const form = new FormData();
    form.append('model', 'whisper-1');
    form.append('response_format', 'verbose_json');
    form.append('file', new Blob([new Uint8Array(40_000)], { type: 'audio/wav' }), 'clip.wav');
    const res = await fetch(`${mock().url}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: OPENAI_AUTH,
      body: form,
    });
    const body = await json(res);
    expect(body.duration).toBe(2.5);
    expect(body.usage).toEqual({ type: 'duration', seconds: 3 });
  });
});
