// Golden files: testdata/<format>/<case>.in.(json|sse) -> <case>.out.json, what the format module
// reads from providers' documented shapes. `UPDATE_GOLDEN=1` rewrites the .out.json files (review
// the diff); without it a missing or different file fails.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  anthropic,
  anyFormat,
  bedrock,
  gemini,
  jsonFacts,
  jsonText,
  openai,
  parseSse,
  SseReader,
  streamFacts,
  streamText,
  type WireFormat,
} from './index.js';

const root = join(import.meta.dirname, 'testdata');
// Read once here, not in src/config.ts: a test-only switch, never a gateway setting.
const update = process.env.UPDATE_GOLDEN === '1';
const formats: Record<string, WireFormat> = { openai, anthropic, bedrock, gemini };

function readCase(format: WireFormat, file: string, raw: Buffer): unknown {
  if (file.endsWith('.sse')) {
    return { ...streamFacts(raw, format), text: streamText(raw, format) };
  }
  const parsed = JSON.parse(raw.toString('utf8')) as { path: string; body: unknown };
  if (file.startsWith('request-')) {
    return {
      lastUserMessage: format.lastUserMessage(parsed.body) ?? null,
      userTurnText: format.userTurnText(parsed.body) ?? null,
      requestModel: format.requestModel(parsed.body, parsed.path) ?? null,
    };
  }
  return { ...jsonFacts(parsed, format), text: jsonText(parsed, format) ?? null };
}

/** JSON with undefined spelled out, so that the files show what was not found. */
const stable = (value: unknown) =>
  `${JSON.stringify(value, (_key, v: unknown) => (v === undefined ? null : v), 2)}\n`;

for (const [name, format] of Object.entries(formats)) {
  describe(`${name} golden files`, () => {
    const dir = join(root, name);
    const inputs = readdirSync(dir).filter((f) => /\.in\.(json|sse)$/.test(f));
    it('has cases', () => expect(inputs.length).toBeGreaterThan(2));
    for (const file of inputs) {
      it(file, () => {
        const raw = readFileSync(join(dir, file));
        const got = stable(readCase(format, file, raw));
        const out = join(dir, file.replace(/\.in\.(json|sse)$/, '.out.json'));
        if (update) writeFileSync(out, got);
        expect(existsSync(out), `${out} is missing: run with UPDATE_GOLDEN=1`).toBe(true);
        expect(got).toBe(readFileSync(out, 'utf8'));
        // Shape detection (callers that know no provider) reads the same usage and model.
        if (!file.startsWith('request-')) {
          const any = file.endsWith('.sse')
            ? streamFacts(raw, anyFormat)
            : jsonFacts(JSON.parse(String(raw)), anyFormat);
          const own = file.endsWith('.sse')
            ? streamFacts(raw, format)
            : jsonFacts(JSON.parse(String(raw)), format);
          expect(any).toEqual(own);
        }
      });
      if (file.endsWith('.sse')) {
        it(`${file}: the same events however the bytes are cut`, () => {
          const raw = readFileSync(join(dir, file));
          const whole = parseSse(raw);
          for (let i = 0; i <= raw.length; i++) {
            const reader = new SseReader();
            expect([
              ...reader.push(raw.subarray(0, i)),
              ...reader.push(raw.subarray(i)),
              ...reader.end(),
            ]).toEqual(whole);
          }
        });
      }
    }
  });
}
