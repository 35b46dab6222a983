// The model a request asks for, where each API puts it: the JSON body's `model`, a multipart form's
// `model` field (audio uploads), or the path (Bedrock's `/model/<id>/...`, Gemini's
// `models/<id>:generateContent`; the formats module reads bodies and paths).
import { anyFormat, bodyModel, formRequest } from './index.js';

export function requestModel(
  path: string,
  contentType: string | undefined,
  body: Buffer | undefined,
  json: unknown,
): string {
  const own = bodyModel(json);
  if (own !== undefined) return own;
  if (body && contentType?.startsWith('multipart/form-data')) {
    // Form fields come before the file in what SDKs send: the head of the body is enough.
    const model = bodyModel(formRequest(contentType, body.subarray(0, 64 * 1024)));
    if (model !== undefined) return model;
  }
  return anyFormat.requestModel(undefined, path) ?? '';
}
