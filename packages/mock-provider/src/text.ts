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

/** A unit-length vector derived from sha256 of the text: same text, same vector. */
export function embeddingVector(text: string, dimensions: number): number[] {
  const raw: number[] = [];
  let block = 0;
  while (raw.length < dimensions) {
    const digest = createHash('sha256').update(`${block}:${text}`).digest();
    for (let i = 0; i + 4 <= digest.length && raw.length < dimensions; i += 4) {
      raw.push(digest.readUInt32BE(i) / 0xffffffff - 0.5);
    }
    block++;
  }
  const norm = Math.sqrt(raw.reduce((sum, v) => sum + v * v, 0)) || 1;
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
