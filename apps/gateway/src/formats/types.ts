// The one interface every wire format module implements, and the usage record they all return.
export type Json = Record<string, unknown>;

export type FormatId = 'openai' | 'anthropic' | 'bedrock' | 'gemini';

/**
 * Token counts as pricing takes them (packages/pricing): `inputTokens` INCLUDES the cached and
 * cache-write tokens, whatever the provider's own convention; `outputTokens` includes reasoning.
 */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cachedInputTokens: number;
  /** Present only when the provider reported prompt-cache writes (Anthropic, Bedrock). */
  cacheWriteInputTokens?: number;
  /** True when counted by the gateway's tokenizer (estimate.ts), not reported by the provider. */
  estimated: boolean;
}

/** What one body or one event reports; a field left out (or 0) was not reported there. */
export type UsagePart = Partial<Omit<Usage, 'estimated'>>;

/** Where the last user message sits in a request body, so the semantic cache can take it out. */
export interface UserMessageAt {
  /** The text of its text parts joined with LF. */
  readonly text: string;
  /** The body's list of turns (`messages`, `contents`) and the index of the message in it. */
  readonly list: string;
  readonly index: number;
  /** The message's field holding the content (`content`, `parts`). */
  readonly field: string;
}

export interface WireFormat {
  readonly id: FormatId | 'any';
  /** Usage of a whole JSON answer; undefined when the body carries none in this format's shape. */
  usage(body: Json): UsagePart | undefined;
  /** Usage carried by one stream event (its parsed `data`). */
  eventUsage(event: Json): UsagePart | undefined;
  /** The answer text of a whole JSON answer; undefined when the body is not this format's answer. */
  text(body: Json): string | undefined;
  /** The answer text one stream event adds ('' for none). */
  eventText(event: Json): string;
  /** The model that served a JSON answer, as the answer names it. */
  model(body: Json): string | undefined;
  /** The model one stream event names. */
  eventModel(event: Json): string | undefined;
  /** The last user message when it is text only (images and tool results make it undefined). */
  lastUserMessage(request: unknown): UserMessageAt | undefined;
  /** The latest user turn's text as guardrails read it (text parts of consecutive user messages). */
  userTurnText(request: unknown): string | undefined;
  /** The model a request asks for: the body's field, else the provider path's. */
  requestModel(request: unknown, path?: string): string | undefined;
}
