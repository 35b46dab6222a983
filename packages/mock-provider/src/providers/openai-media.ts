// OpenAI image generations, edits and variations and text to speech, deterministic: a tiny PNG per image (as `b64_json` or
// a `url`), gpt-image-* token usage, and speech as audio bytes whose length follows the input.
import { asString, intField, requireJsonObject } from '../body.js';
import type { RouteContext } from '../context.js';
import { invalidRequest } from '../errors.js';
import { sendBody, sendError, sendJson } from '../http-io.js';
import { countTokens } from '../text.js';
import { field, missing, requireParts } from './openai-files.js';

/** A valid 1x1 transparent PNG: what every generated image is. */
export const MOCK_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/** Output tokens OpenAI reports for one gpt-image-1 image at low quality, square size. */
const IMAGE_OUTPUT_TOKENS = 272;

/** The answer of n images (OpenAI's shape): b64_json or url; gpt-image-* add their token usage. */
function imagesAnswer(ctx: RouteContext, model: string, prompt: string, count: number, asUrl: boolean) {
  const image = () =>
    asUrl
      ? { url: `https://mock-provider.invalid/images/${ctx.record.requestId}.png` }
      : { b64_json: MOCK_PNG.toString('base64') };
  const answer: Record<string, unknown> = {
    created: Math.floor(Date.now() / 1000),
    data: Array.from({ length: count }, () =>
      model === 'dall-e-3' ? { ...image(), revised_prompt: prompt } : image(),
    ),
  };
  if (model.startsWith('gpt-image-')) {
    const input = countTokens(prompt);
    const output = IMAGE_OUTPUT_TOKENS * count;
    answer.usage = {
      total_tokens: input + output,
      input_tokens: input,
      output_tokens: output,
      input_tokens_details: { text_tokens: input, image_tokens: 0 },
    };
  }
  return answer;
}

export function handleImageGenerations(ctx: RouteContext): void {
  const body = requireJsonObject(ctx);
  if (!body) return;
  const prompt = asString(body.prompt);
  if (prompt === undefined || prompt === '') {
    sendError(ctx, invalidRequest(ctx.style, "Missing required parameter: 'prompt'.", 'prompt'));
    return;
  }
  const model = asString(body.model) ?? 'dall-e-2';
  const n = intField(body.n, 1, model === 'dall-e-3' ? 1 : 10);
  if (n === 'invalid') {
    sendError(
      ctx,
      invalidRequest(ctx.style, "Invalid 'n': must be an integer within the model's range.", 'n'),
    );
    return;
  }
  sendJson(ctx, 200, imagesAnswer(ctx, model, prompt, n ?? 1, asString(body.response_format) === 'url'));
}

/** Image edits and variations: multipart, an `image` file (edits also need a `prompt`). */
export function handleImageUpload(ctx: RouteContext, edit: boolean): void {
  const parts = requireParts(ctx);
  if (!parts) return;
  if (!parts.some((p) => p.name.startsWith('image') && p.filename !== undefined)) {
    sendError(ctx, missing('image'));
    return;
  }
  const prompt = field(parts, 'prompt') ?? '';
  if (edit && prompt === '') {
    sendError(ctx, missing('prompt'));
    return;
  }
  const n = Number(field(parts, 'n') ?? '1');
  if (!Number.isInteger(n) || n < 1 || n > 10) {
    sendError(ctx, invalidRequest(ctx.style, "Invalid 'n': must be an integer from 1 to 10.", 'n'));
    return;
  }
  const model = field(parts, 'model') ?? 'dall-e-2';
  sendJson(ctx, 200, imagesAnswer(ctx, model, prompt, n, field(parts, 'response_format') === 'url'));
}

const AUDIO_TYPES: Readonly<Record<string, string>> = {
  mp3: 'audio/mpeg',
  opus: 'audio/opus',
  aac: 'audio/aac',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
};

/** Speech: `16` bytes of audio per input character, in the asked format's content type. */
export function handleSpeech(ctx: RouteContext): void {
  const body = requireJsonObject(ctx);
  if (!body) return;
  for (const field of ['model', 'input', 'voice'] as const) {
    const value = asString(body[field]);
    if (value === undefined || value === '') {
      sendError(ctx, invalidRequest(ctx.style, `Missing required parameter: '${field}'.`, field));
      return;
    }
  }
  const format = asString(body.response_format) ?? 'mp3';
  const type = AUDIO_TYPES[format];
  if (!type) {
    sendError(ctx, invalidRequest(ctx.style, `Invalid 'response_format': '${format}'.`, 'response_format'));
    return;
  }
  const input = asString(body.input) ?? '';
  const audio = Buffer.alloc([...input].length * 16, 0x55);
  sendBody(ctx.res, 200, type, audio);
}
