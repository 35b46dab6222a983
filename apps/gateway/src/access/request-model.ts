// The model a request asks for, where each API puts it: the JSON body's `model`, a multipart form's
// `model` field (audio uploads), or Bedrock's `/model/<id>/...` path.
const MULTIPART_MODEL =
  /content-disposition:\s*form-data;\s*name="model"\r\n(?:[^\r\n]+\r\n)*\r\n([^\r\n]{1,256})\r\n/i;
const BEDROCK_PATH = /^\/model\/([^/]{1,512})\//;

export function requestModel(
  path: string,
  contentType: string | undefined,
  body: Buffer | undefined,
  json: unknown,
): string {
  if (typeof json === 'object' && json !== null && !Array.isArray(json)) {
    const model = (json as { model?: unknown }).model;
    if (typeof model === 'string') return model;
  }
  if (body && contentType?.startsWith('multipart/form-data')) {
    // Form fields come before the file in what SDKs send: the head of the body is enough.
    const match = MULTIPART_MODEL.exec(body.subarray(0, 64 * 1024).toString('latin1'));
    if (match?.[1] !== undefined) return match[1];
  }
  const bedrock = BEDROCK_PATH.exec(path);
  if (bedrock?.[1] !== undefined) {
    try {
      return decodeURIComponent(bedrock[1]);
    } catch {
      return bedrock[1];
    }
  }
  return '';
}
