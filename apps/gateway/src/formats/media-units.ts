// Which media units an image or audio request and its answer carry (OpenAI's image, speech and
// transcription APIs, which OpenAI-compatible providers copy): images with their quality and size,
// characters turned into speech, seconds of audio transcribed. Priced by @aigw/pricing's costOf.
import type { MediaUnits } from '@aigw/pricing';
import { obj, str } from './json.js';
import type { Json } from './types.js';

export type { MediaUnits } from '@aigw/pricing';

/** The kinds of media endpoint, by the last segments of a path (Azure's sit under a deployment). */
export type MediaEndpoint = 'images' | 'speech' | 'transcription';

export function mediaEndpoint(path: string): MediaEndpoint | undefined {
  if (/\/images\/(?:generations|edits|variations)$/.test(path)) return 'images';
  if (path.endsWith('/audio/speech')) return 'speech';
  if (/\/audio\/(?:transcriptions|translations)$/.test(path)) return 'transcription';
  return undefined;
}

/**
 * The model OpenAI's image API uses when a request names none (generations, edits and variations:
 * dall-e-2, per its API reference). Speech and transcription require `model`.
 */
export const DEFAULT_IMAGE_MODEL = 'dall-e-2';

/**
 * The model a media request is priced as: the one it names, else the provider's documented default
 * when the request's fields were read (a JSON object, or a form) and name none. '' otherwise (a
 * path that is not an image one, an upload whose fields were not read). Prices only: the request
 * event's `model_requested` stays what the request named (docs/limits.md, "Image and audio units").
 */
export function mediaModel(path: string, named: string, asked: unknown): string {
  if (named !== '') return named;
  const fields = obj(asked);
  if (!fields || mediaEndpoint(path) !== 'images') return '';
  return str(fields.model) ?? DEFAULT_IMAGE_MODEL;
}

/**
 * OpenAI's documented defaults when a request leaves quality or size out: dall-e-2 and dall-e-3
 * make 1024x1024 images at standard quality, gpt-image-1 picks both (`auto`). A request naming no
 * model gets dall-e-2's, OpenAI's default image model.
 */
function imageDefaults(model: string | undefined): { quality?: string; size?: string } {
  if (model === undefined || model.startsWith('dall-e-')) return { quality: 'standard', size: '1024x1024' };
  if (model.startsWith('gpt-image-')) return { quality: 'auto', size: 'auto' };
  return {};
}

/** `n` as OpenAI reads it: a whole number from 1 (absent: 1); anything else is not counted. */
function imageCount(n: unknown): number {
  if (n === undefined || n === null) return 1;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 1 ? n : 0;
}

/**
 * What a JSON request asks to be made, known before the call (reserved at admission): images (`n`,
 * default 1, at the request's quality and size or the model's defaults), or the characters of a
 * speech request's `input` (Unicode code points, as OpenAI counts them). Undefined for other paths,
 * bodies that are not JSON objects, and requests that name no countable unit.
 */
export function requestMediaUnits(path: string, json: unknown): MediaUnits | undefined {
  const endpoint = mediaEndpoint(path);
  const body = obj(json);
  if (!endpoint || !body) return undefined;
  if (endpoint === 'images') {
    const images = imageCount(body.n);
    if (images === 0) return undefined;
    const model = str(body.model);
    const defaults = imageDefaults(model);
    return {
      images,
      imageQuality: str(body.quality) ?? defaults.quality,
      imageSize: str(body.size) ?? defaults.size,
    };
  }
  if (endpoint === 'speech') {
    const input = str(body.input);
    if (input === undefined || input === '') return undefined;
    let characters = 0;
    for (const _ of input) characters++;
    return { characters };
  }
  return undefined;
}

/**
 * The units an answer measured, for settlement: the images it holds (`data[]`) and the seconds of
 * audio a transcription or translation reports (`usage: {type: "duration", seconds}`, or
 * verbose_json's `duration`; a fraction of a second counts as a whole one). Undefined when the
 * answer says nothing countable (a transcription answered as text, a body not at hand).
 */
export function answerMediaUnits(path: string, answer: unknown): MediaUnits | undefined {
  const endpoint = mediaEndpoint(path);
  const body = obj(answer);
  if (!endpoint || !body) return undefined;
  if (endpoint === 'images') {
    return Array.isArray(body.data) ? { images: body.data.length } : undefined;
  }
  if (endpoint === 'transcription') {
    const usage = obj(body.usage);
    const seconds = usage?.type === 'duration' ? usage.seconds : body.duration;
    if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) return undefined;
    return { audioSeconds: Math.ceil(seconds) };
  }
  return undefined;
}

/** Form fields that name an upload's model and say what an image upload (edits, variations) makes. */
const FORM_FIELDS = new Set(['model', 'n', 'size', 'quality']);

/** The boundary of a multipart/form-data content type; undefined for any other body. */
function formBoundary(contentType: string | undefined): string | undefined {
  return /^multipart\/form-data;.*?boundary="?([^";]+)"?/i.exec(contentType ?? '')?.[1];
}

interface FormPart {
  /** The part's header lines (Latin-1, as HTTP headers are read). */
  readonly headers: string;
  /** The part's content: a view into the body, not a copy. */
  readonly content: Buffer;
}

/**
 * The whole parts of a multipart body, in order: a part is whole once the next boundary line
 * follows it, so a part cut off by the end of a captured head is not yielded. Reads the bytes as
 * they are (a file's content is binary), copying nothing.
 */
function* formParts(boundary: string, body: Buffer): Generator<FormPart> {
  const delimiter = Buffer.from(`--${boundary}`, 'latin1');
  const next = Buffer.from(`\r\n--${boundary}`, 'latin1');
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const headStart = at + delimiter.length;
    // `--boundary--` closes the form.
    if (body[headStart] === 0x2d && body[headStart + 1] === 0x2d) return;
    const headEnd = body.indexOf('\r\n\r\n', headStart, 'latin1');
    if (headEnd < 0) return;
    const end = body.indexOf(next, headEnd + 4);
    if (end < 0) return;
    yield {
      headers: body.toString('latin1', headStart, headEnd),
      content: body.subarray(headEnd + 4, end),
    };
    at = end + 2;
  }
}

const partName = (headers: string) =>
  /content-disposition:\s*form-data;[^\r\n]*?\bname="([^"]+)"/i.exec(headers)?.[1];

/**
 * The text fields of a multipart/form-data body (whole, or its head) that name an upload's model
 * and price an image upload (`model`, `n`, `size`, `quality`), as a JSON-like object
 * `requestMediaUnits` and `bodyModel` read (`n` as a number); with `formFile`, the one multipart
 * reader of the gateway. The head holds only the fields sent before the file: the official OpenAI
 * Node SDK sends them after it, so callers pass the whole body whenever the gateway holds it.
 * Undefined when the body is not multipart.
 */
export function formRequest(contentType: string | undefined, head: Buffer | undefined): Json | undefined {
  const boundary = formBoundary(contentType);
  if (!boundary || !head) return undefined;
  const out: Json = {};
  for (const part of formParts(boundary, head)) {
    if (/filename=/i.test(part.headers)) continue;
    const name = partName(part.headers);
    if (!name || !FORM_FIELDS.has(name)) continue;
    const value = part.content.toString('latin1');
    out[name] = name === 'n' ? (/^\d{1,4}$/.test(value) ? Number(value) : value) : value;
  }
  return out;
}

/**
 * The content of a whole multipart body's `file` part (the audio of a transcription or translation
 * upload), as a view into the body; undefined when the body is not multipart or holds no whole
 * `file` part.
 */
export function formFile(contentType: string | undefined, body: Buffer | undefined): Buffer | undefined {
  const boundary = formBoundary(contentType);
  if (!boundary || !body) return undefined;
  for (const part of formParts(boundary, body)) {
    if (partName(part.headers) === 'file') return part.content;
  }
  return undefined;
}

/**
 * The units a successful call is charged: what the request asked for, with what the answer
 * measured taking precedence (the images it holds, the audio seconds it reports). Images keep the
 * request's quality and size, which the answer does not repeat.
 */
export function measuredMediaUnits(
  path: string,
  requestJson: unknown,
  answer: unknown,
): MediaUnits | undefined {
  const asked = requestMediaUnits(path, requestJson);
  const measured = answerMediaUnits(path, answer);
  if (!asked) return measured;
  if (!measured) return asked;
  return { ...asked, ...measured };
}
