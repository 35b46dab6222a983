// Golden files of the unified API's embeddings translations (testdata/translate-embeddings): per
// provider API, an OpenAI embeddings request as the provider's body, and the provider's documented
// answer as OpenAI's list. `UPDATE_GOLDEN=1` rewrites the .out.json files (review the diff, then
// format them).
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cohereEmbedAnswer, cohereEmbedRequest } from './embed-cohere.js';
import {
  geminiEmbedAnswer,
  geminiEmbedRequest,
  vertexEmbedAnswer,
  vertexEmbedRequest,
} from './embed-gemini.js';
import { titanEmbedAnswer, titanEmbedRequest } from './embed-titan.js';
import { type EmbeddingsRequest, readEmbeddingsRequest } from './embeddings-openai.js';
import type { Json } from './types.js';

const root = join(import.meta.dirname, 'testdata', 'translate-embeddings');
// Read once here, not in src/config.ts: a test-only switch, never a gateway setting.
const update = process.env.UPDATE_GOLDEN === '1';

interface Api {
  request(req: EmbeddingsRequest): Json;
  answer(body: Json, req: EmbeddingsRequest): Json;
}

const APIS: Record<string, Api> = {
  gemini: { request: geminiEmbedRequest, answer: geminiEmbedAnswer },
  vertex: { request: vertexEmbedRequest, answer: vertexEmbedAnswer },
  cohere: { request: (req) => cohereEmbedRequest(req), answer: cohereEmbedAnswer },
  'bedrock-cohere': { request: (req) => cohereEmbedRequest(req, true), answer: cohereEmbedAnswer },
  'bedrock-titan': { request: titanEmbedRequest, answer: titanEmbedAnswer },
};

const read = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Json;
const stable = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** Compared as JSON values: the files may be formatted by the formatter after an update. */
function golden(dir: string, name: string, value: unknown): void {
  const out = join(dir, `${name}.out.json`);
  if (update) writeFileSync(out, stable(value));
  expect(existsSync(out), `${out} is missing: run with UPDATE_GOLDEN=1`).toBe(true);
  expect(JSON.parse(stable(value))).toEqual(JSON.parse(readFileSync(out, 'utf8')));
}

describe('embeddings translation golden files', () => {
  it('covers every provider API directory', () => {
    expect(readdirSync(root).sort()).toEqual(Object.keys(APIS).sort());
  });

  for (const [name, api] of Object.entries(APIS)) {
    const dir = join(root, name);
    const req = () => readEmbeddingsRequest(read(join(dir, 'request.in.json')));
    it(`${name}: the OpenAI request as the provider's body`, () => {
      golden(dir, 'request', api.request(req()));
    });
    it(`${name}: the provider's answer as OpenAI's list`, () => {
      golden(dir, 'answer', api.answer(read(join(dir, 'answer.in.json')), req()));
    });
  }
});
