// Token estimates for answers whose provider reported no usage, with gpt-tokenizer (pure JS BPE,
// ranks shipped in the package: nothing is downloaded). OpenAI models get their own encoding;
// every other model is counted with o200k_base as an approximation (their tokenizers are not
// published as JS packages; o200k's larger vocabulary is closer to current ones than cl100k's).

import type { Usage } from './types.js';
import { completeUsage } from './usage.js';

export type Encoding = 'o200k_base' | 'cl100k_base';

interface Counter {
  countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number;
}

/** Loaded on first use: an encoding's ranks take ~35 MB of heap and ~0.1-0.5 s to evaluate. */
const loaded = new Map<Encoding, Promise<Counter>>();

function load(encoding: Encoding): Promise<Counter> {
  let counter = loaded.get(encoding);
  if (!counter) {
    counter =
      encoding === 'o200k_base'
        ? import('gpt-tokenizer/encoding/o200k_base')
        : import('gpt-tokenizer/encoding/cl100k_base');
    loaded.set(encoding, counter);
  }
  return counter;
}

/** Loads the encodings now (at startup), so that the first estimate does not pay for it. */
export async function preloadTokenizers(): Promise<void> {
  await Promise.all([load('o200k_base'), load('cl100k_base')]);
}

const CL100K =
  /^(gpt-4(?!o|\.)|gpt-3\.5|text-embedding-(3|ada-002)|text-davinci-00[23]|davinci-002|babbage-002)/;

/**
 * The encoding of a model: cl100k_base for gpt-4 (not 4o / 4.1 / 4.5), gpt-3.5 and the embedding
 * models; o200k_base for gpt-4o, gpt-4.1, gpt-5, the o-series and, approximately, everything else.
 * A `provider/model` or `deployment/model` prefix is ignored.
 */
export function encodingFor(model: string): Encoding {
  const name = model.slice(model.lastIndexOf('/') + 1).toLowerCase();
  return CL100K.test(name) ? 'cl100k_base' : 'o200k_base';
}

/** No special token is refused: user text may contain `<|endoftext|>`, counted as plain text. */
const PLAIN = { disallowedSpecial: new Set<string>() };

export async function estimateTokens(text: string, model: string): Promise<number> {
  if (text === '') return 0;
  const counter = await load(encodingFor(model));
  return counter.countTokens(text, PLAIN);
}

export interface EstimateInput {
  /** The model asked for or served ('' when unknown: o200k_base). */
  readonly model: string;
  /** The text the model read: the request's messages, prompt or input. */
  readonly inputText: string;
  /** The answer text (formats' jsonText / streamText). */
  readonly outputText: string;
}

/**
 * Usage counted by the gateway, marked `estimated: true`. An answer with any text is never free: a
 * non-empty text counts at least one token even where the tokenizer would merge it away.
 */
export async function estimateUsage(input: EstimateInput): Promise<Usage> {
  const [inputTokens, outputTokens] = await Promise.all([
    estimateTokens(input.inputText, input.model),
    estimateTokens(input.outputText, input.model),
  ]);
  return completeUsage(
    {
      inputTokens: Math.max(inputTokens, input.inputText === '' ? 0 : 1),
      outputTokens: Math.max(outputTokens, input.outputText === '' ? 0 : 1),
    },
    true,
  );
}

/**
 * The fallback when only sizes are known (a body too large to keep, a non-text answer): about four
 * bytes a token, marked estimated, and never zero for a non-empty body.
 */
export function estimateUsageFromSizes(requestBytes: number, responseBytes: number): Usage {
  return completeUsage(
    { inputTokens: Math.ceil(requestBytes / 4), outputTokens: Math.ceil(responseBytes / 4) },
    true,
  );
}
