// Deterministic text helpers: token counts, truncation, stream chunking and embedding vectors.
import { createHash, randomBytes } from 'node:crypto';

/** The mock's token count: whitespace-separated words (tests can compute it from the text). */
export function countTokens(text: string): number {
  const words = text.match(/\S+/g);
  return words ? words.length : 0;
}

/** Keep the first `max` tokens of `text`, preserving its spacing. */
export function truncateTokens(text: string, max: number | undefined): { text: string; truncated: boolean } {
  if (max === undefined) return { text, truncated: false };
  const words = [...text.matchAll(/\S+/g)];
  if (words.length <= max) return { text, truncated: false };
  if (max <= 0) return { text: '', truncated: true };
  const last = words[max - 1]!;
  return { text: text.slice(0, last.index + last[0].length), truncated: true };
}

/**
 * Split content into stream pieces whose concatenation is the content. Without `count`, one piece per
 * word; with `count`, exactly that many pieces of near-equal length (empty ones when it is short).
 */
export function splitChunks(content: string, count: number | undefined): string[] {
  if (count === undefined) {
    const pieces = content.match(/\s*\S+\s*/g);
    if (!pieces) return [content];
    // A leading run of spaces is glued to the first piece by the regex; nothing is lost.
    return pieces;
  }
  const n = Math.max(1, count);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    out.push(content.slice(Math.floor((i * content.length) / n), Math.floor(((i + 1) * content.length) / n)));
  }
  return out;
}

/**
 * A unit-length bag-of-words vector: each lower-cased word (letters and digits) adds 1 to the dimension
 * its sha256 picks. Same text, same vector; texts sharing most words have a high cosine similarity
 * (so paraphrases can hit a semantic cache), texts sharing none are near orthogonal.
 */
export function embeddingVector(text: string, dimensions: number): number[] {
  const raw = new Array<number>(dimensions).fill(0);
  // A text without any word still gets a vector: its whole text is its one feature.
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [text];
  for (const word of words) {
    const index = createHash('sha256').update(word).digest().readUInt32BE(0) % dimensions;
    raw[index] = (raw[index] ?? 0) + 1;
  }
  const norm = Math.sqrt(raw.reduce((sum, v) => sum + v * v, 0));
  return raw.map((v) => v / norm);
}

/** A number in [0, 1) derived from the text. */
export function hashUnit(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0) / 0x100000000;
}

export function randomId(prefix: string, bytes = 12): string {
  return `${prefix}${randomBytes(bytes).toString('hex')}`;
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
