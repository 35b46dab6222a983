// The text of an event-stream answer, for output guardrails: the content deltas of OpenAI chat,
// completions and Responses, Anthropic messages, Bedrock and Gemini streams, concatenated in order
// (read by the formats module, over its SSE reader).
import { streamText as formatsStreamText } from '../formats/index.js';

/** The concatenated content of every event whose data is JSON; other events are skipped. */
export function streamText(body: Buffer | string): string {
  return formatsStreamText(body);
}

/** Whether an answer is an event stream (read with streamText, never JSON-parsed). */
export function isEventStream(contentType: string | undefined): boolean {
  return contentType?.toLowerCase().startsWith('text/event-stream') ?? false;
}
