// Google Gemini (AI Studio) and Vertex AI generateContent / streamGenerateContent: `usageMetadata`,
// `candidates[].content.parts[].text`, `modelVersion`. A stream is SSE with `?alt=sse`, else one
// JSON array of the same chunks (read it with readJsonAnswer, which takes arrays as event lists).
import { bodyModel, lastUserIn, num, obj, str, TEXT_PARTS, userTurnIn } from './json.js';
import type { Json, UsagePart, WireFormat } from './types.js';

const MODEL_PATH = /models\/([^/:]{1,256}):/;

/**
 * promptTokenCount includes the cached content; tool-use prompt tokens and thoughts are billed as
 * input and output (thoughtsTokenCount is outside candidatesTokenCount).
 */
function usage(body: Json): UsagePart | undefined {
  const u = obj(body.usageMetadata);
  if (!u) return undefined;
  return {
    inputTokens: num(u.promptTokenCount) + num(u.toolUsePromptTokenCount),
    outputTokens: num(u.candidatesTokenCount) + num(u.thoughtsTokenCount),
    totalTokens: num(u.totalTokenCount),
    cachedInputTokens: num(u.cachedContentTokenCount),
  };
}

/** The text parts of each candidate (thought summaries are not the answer), `join` between parts. */
function candidateTexts(body: Json, join: string): string[] | undefined {
  if (!Array.isArray(body.candidates)) return undefined;
  return body.candidates.map((candidate) => {
    const parts = obj(obj(candidate)?.content)?.parts;
    if (!Array.isArray(parts)) return '';
    const texts: string[] = [];
    for (const part of parts) {
      const p = obj(part);
      if (p && typeof p.text === 'string' && p.thought !== true) texts.push(p.text);
    }
    return texts.join(join);
  });
}

export const gemini: WireFormat = {
  id: 'gemini',
  usage,
  eventUsage: usage,
  text: (body) => candidateTexts(body, '\n')?.join('\n'),
  eventText: (event) => candidateTexts(event, '')?.join('') ?? '',
  model: (body) => str(body.modelVersion),
  eventModel: (event) => str(event.modelVersion),
  lastUserMessage: (request) => lastUserIn(request, 'contents', 'parts'),
  userTurnText(request) {
    const contents = obj(request)?.contents;
    return Array.isArray(contents) ? userTurnIn(contents, (m) => m.parts, TEXT_PARTS) : undefined;
  },
  requestModel(request, path) {
    const own = bodyModel(request);
    if (own !== undefined) return own;
    const match = path === undefined ? null : MODEL_PATH.exec(path);
    return match?.[1];
  },
};
