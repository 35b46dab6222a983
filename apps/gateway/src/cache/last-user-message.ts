// The question a semantic cache compares: the text of the last user message of a chat body
// (OpenAI and Anthropic `messages`, Bedrock Converse, Cohere v2, Gemini `contents`).

interface Split {
  /** The last user message's text. */
  readonly text: string;
  /** The body with that text taken out: what must match exactly for a semantic hit. */
  readonly rest: unknown;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A text part: `{type:'text', text}` (OpenAI, Anthropic) or a bare `{text}` (Bedrock, Gemini). */
function partText(part: unknown): string | undefined {
  if (!isRecord(part) || typeof part.text !== 'string') return undefined;
  if (part.type === 'text') return part.text;
  if (part.type === undefined && Object.keys(part).length === 1) return part.text;
  return undefined;
}

/** Text of a message's content; undefined when it holds anything else (images, tool results). */
function contentText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content) || content.length === 0) return undefined;
  const texts: string[] = [];
  for (const part of content) {
    const text = partText(part);
    // An image or a tool result changes the answer as much as the words do: not a paraphrase matter.
    if (text === undefined) return undefined;
    texts.push(text);
  }
  return texts.join('\n');
}

function splitList(
  body: Record<string, unknown>,
  listField: string,
  contentField: string,
): Split | undefined {
  const list = body[listField];
  if (!Array.isArray(list)) return undefined;
  for (let i = list.length - 1; i >= 0; i--) {
    const message = list[i];
    if (!isRecord(message) || message.role !== 'user') continue;
    const text = contentText(message[contentField]);
    if (text === undefined || text.trim() === '') return undefined;
    const copy = [...list];
    copy[i] = { ...message, [contentField]: null };
    return { text, rest: { ...body, [listField]: copy } };
  }
  return undefined;
}

/** The last user message's text and the body without it; undefined when the body has none. */
export function splitLastUserMessage(body: unknown): Split | undefined {
  if (!isRecord(body)) return undefined;
  if (Array.isArray(body.messages)) return splitList(body, 'messages', 'content');
  if (Array.isArray(body.contents)) return splitList(body, 'contents', 'parts');
  return undefined;
}

export function lastUserMessage(body: unknown): string | undefined {
  return splitLastUserMessage(body)?.text;
}
