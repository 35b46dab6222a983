// Golden files of the unified API's translations (testdata/translate): each OpenAI request of
// `requests/` as each provider's body, and each provider's documented answers, stream events and
// errors as OpenAI's. `UPDATE_GOLDEN=1` rewrites the .out.json files (review the diff, then format them).
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anthropicAnswer, anthropicError, anthropicRequest, anthropicStream } from './chat-anthropic.js';
import { bedrockError, converseAnswer, converseRequest, converseStream } from './chat-bedrock.js';
import { cohereAnswer, cohereError, cohereRequest, cohereStream } from './chat-cohere.js';
import { geminiAnswer, geminiError, geminiRequest, geminiStream } from './chat-gemini.js';
import {
  type ChatAnswer,
  type ChatRequest,
  type ChatStream,
  completionJson,
  type ErrorFields,
  type ProviderEvent,
  readChatRequest,
  TranslationError,
} from './chat-openai.js';
import type { Json } from './types.js';

const root = join(import.meta.dirname, 'testdata', 'translate');
// Read once here, not in src/config.ts: a test-only switch, never a gateway setting.
const update = process.env.UPDATE_GOLDEN === '1';
const ID = 'chatcmpl-golden';

interface Api {
  request(req: ChatRequest): Json;
  answer(body: Json, req: ChatRequest): ChatAnswer;
  stream(req: ChatRequest): ChatStream;
  error(status: number, body: unknown, type?: string): ErrorFields;
}

const APIS: Record<string, Api> = {
  anthropic: {
    request: (req) => anthropicRequest(req),
    answer: anthropicAnswer,
    stream: (req) => anthropicStream(req, ID, 0),
    error: anthropicError,
  },
  'bedrock-converse': {
    request: converseRequest,
    answer: (body, req) => converseAnswer(body, req, ID),
    stream: (req) => converseStream(req, ID, 0),
    error: bedrockError,
  },
  gemini: {
    request: geminiRequest,
    answer: (body, req) => geminiAnswer(body, req, ID),
    stream: (req) => geminiStream(req, ID, 0),
    error: geminiError,
  },
  cohere: {
    request: cohereRequest,
    answer: (body, req) => cohereAnswer(body, req),
    stream: (req) => cohereStream(req, ID, 0),
    error: cohereError,
  },
};

const read = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Json;
const requests = readdirSync(join(root, 'requests')).filter((f) => f.endsWith('.json'));
const request = (name: string) => readChatRequest(read(join(root, 'requests', `${name}.json`)));
const stable = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** Compared as JSON values: the files may be formatted by the formatter after an update. */
function golden(dir: string, name: string, value: unknown): void {
  const out = join(dir, `${name}.out.json`);
  if (update) writeFileSync(out, stable(value));
  expect(existsSync(out), `${out} is missing: run with UPDATE_GOLDEN=1`).toBe(true);
  expect(JSON.parse(stable(value))).toEqual(JSON.parse(readFileSync(out, 'utf8')));
}

for (const [name, api] of Object.entries(APIS)) {
  describe(`${name} translation golden files`, () => {
    const dir = join(root, name);
    for (const file of requests) {
      const base = file.replace(/\.json$/, '');
      it(`request ${base}`, () => {
        let out: unknown;
        try {
          out = api.request(request(base));
        } catch (err) {
          if (!(err instanceof TranslationError)) throw err;
          out = { refused: { param: err.param, message: err.message } };
        }
        golden(dir, `request-${base}`, out);
      });
    }
    const cases = readdirSync(dir).filter((f) => f.endsWith('.in.json'));
    it('has answer, stream and error cases', () => {
      for (const kind of ['answer-', 'stream-', 'error-'])
        expect(cases.some((f) => f.startsWith(kind))).toBe(true);
    });
    for (const file of cases) {
      const base = file.replace(/\.in\.json$/, '');
      it(base, () => {
        const input = read(join(dir, file));
        if (base.startsWith('error-')) {
          golden(
            dir,
            base,
            api.error(input.status as number, input.body, input.errorType as string | undefined),
          );
          return;
        }
        const req = request(input.request as string);
        if (base.startsWith('answer-')) {
          golden(dir, base, completionJson(api.answer(input.body as Json, req), 0));
          return;
        }
        // As the stage writes them: an error chunk ends the stream.
        const stream = api.stream(req);
        const chunks: Json[] = [];
        for (const event of input.events as ProviderEvent[]) {
          chunks.push(...stream.event(event));
          if (chunks.at(-1)?.error !== undefined) break;
        }
        golden(dir, base, chunks.at(-1)?.error !== undefined ? chunks : [...chunks, ...stream.end()]);
      });
    }
  });
}
