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
    // The whole form: the official OpenAI Node SDK sends the file first and `model` after it.
    const model = bodyModel(formRequest(contentType, body));
    if (model !== undefined) return model;
  }
  return anyFormat.requestModel(undefined, path) ?? '';
}
