// Golden files of request/response pairs (testdata/policies/<case>.json): volatile values (uuids,
// timestamps) are replaced by stable placeholders, the text is compared exactly, and the files are
// rewritten only when UPDATE_GOLDEN=1.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { ControlPlaneFixture } from '../../test/harness.js';

const DIR = fileURLToPath(new URL('../../testdata/policies/', import.meta.url));
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
/** Fields whose value is the time of the call. */
const VOLATILE_TIMES: ReadonlySet<string> = new Set(['created_at', 'last_updated_at', 'reset_at']);

export interface Exchange {
  readonly request: { readonly method: string; readonly path: string; readonly body?: unknown };
  readonly response: { readonly status: number; readonly body: unknown };
}

/** Numbers uuids in order of first appearance, so the same id reads the same everywhere in a case. */
class Normaliser {
  private readonly ids = new Map<string, string>();

  text(value: string): string {
    return value.replace(UUID, (id) => {
      const key = id.toLowerCase();
      if (!this.ids.has(key)) this.ids.set(key, `<uuid-${this.ids.size + 1}>`);
      return this.ids.get(key) as string;
    });
  }

  value(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((v) => this.value(v));
    if (value !== null && typeof value === 'object')
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => [
          k,
          VOLATILE_TIMES.has(k) && typeof v === 'string' ? '<timestamp>' : this.value(v),
        ]),
      );
    return value;
  }
}

/** Calls the admin API and keeps each request with its response. */
export class GoldenCase {
  readonly exchanges: Exchange[] = [];

  constructor(private readonly cp: ControlPlaneFixture) {}

  async call(method: string, path: string, body?: unknown) {
    const response = await this.cp.call(method, path, body === undefined ? {} : { body });
    this.exchanges.push({
      request: { method: method.toUpperCase(), path, ...(body === undefined ? {} : { body }) },
      response: { status: response.status, body: response.body ?? null },
    });
    return response;
  }
}

export function expectGolden(name: string, exchanges: readonly Exchange[]): void {
  const normaliser = new Normaliser();
  const text = `${JSON.stringify(normaliser.value(exchanges), null, 2)}\n`;
  const file = `${DIR}${name}.json`;
  if (process.env.UPDATE_GOLDEN === '1') {
    mkdirSync(DIR, { recursive: true });
    writeFileSync(file, text);
    return;
  }
  if (!existsSync(file)) throw new Error(`missing golden file ${file}: run the test with UPDATE_GOLDEN=1`);
  expect(text).toBe(readFileSync(file, 'utf8'));
}
