// The text of an event-stream answer, for output guardrails: the content deltas of OpenAI chat and
// completions, Anthropic messages and Gemini streams, concatenated in order.
type Json = Record<string, unknown>;

const obj = (value: unknown): Json | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;

function deltaText(event: Json): string {
  let text = '';
  if (Array.isArray(event.choices)) {
    for (const choice of event.choices) {
      const c = obj(choice);
      const content = obj(c?.delta)?.content ?? c?.text;
      if (typeof content === 'string') text += content;
    }
  }
  const delta = obj(event.delta);
  if (typeof delta?.text === 'string') text += delta.text;
  if (Array.isArray(event.candidates)) {
    for (const candidate of event.candidates) {
      const parts = obj(obj(candidate)?.content)?.parts;
      if (!Array.isArray(parts)) continue;
      for (const part of parts) {
        const t = obj(part)?.text;
        if (typeof t === 'string') text += t;
      }
    }
  }
  return text;
}

/** The concatenated content of every `data:` event that parses as JSON; other lines are skipped. */
export function streamText(body: Buffer | string): string {
  let text = '';
  for (const line of String(body).split(/\r?\n/)) {
    if (!line.startsWith('data:')) continue;
    const data = line.slice(5).trim();
    if (data === '' || data === '[DONE]') continue;
    try {
      const event = obj(JSON.parse(data));
      if (event) text += deltaText(event);
    } catch {
      // A provider's keep-alive or a truncated line: nothing to read in it.
    }
  }
  return text;
}

/** Whether an answer is an event stream (read with streamText, never JSON-parsed). */
export function isEventStream(contentType: string | undefined): boolean {
  return contentType?.toLowerCase().startsWith('text/event-stream') ?? false;
}
