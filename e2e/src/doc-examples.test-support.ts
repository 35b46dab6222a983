// The curl examples of a docs page, run as written: every ```sh block holding a `curl` command and a
// `# expect: <status>` line is one example. Commands are split as a shell would (shell-quote, with the
// page's variables substituted from `env`) and sent with fetch, so a doc that drifts from the API
// fails its test. Only the curl options the docs use are understood; any other is an error.
import { readFileSync } from 'node:fs';
import { parse } from 'shell-quote';

export interface DocExample {
  /** 1-based line of the block in the page. */
  readonly line: number;
  readonly command: string;
  readonly expect: number;
}

export interface ExampleReply {
  readonly status: number;
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers are read field by field in the tests
  readonly body: any;
}

/** The runnable examples of a markdown page, in page order. */
export function docExamples(path: string): DocExample[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  const examples: DocExample[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]?.trim() !== '```sh') continue;
    const start = i;
    const block: string[] = [];
    for (i++; i < lines.length && lines[i]?.trim() !== '```'; i++) block.push(lines[i] ?? '');
    const expected = block.map((l) => /^#\s*expect:\s*(\d{3})\s*$/.exec(l.trim())?.[1]).find(Boolean);
    const command = block
      .filter((l) => !l.trim().startsWith('#'))
      .join('\n')
      .replace(/\\\n/g, ' ')
      .trim();
    if (!command.startsWith('curl ')) continue;
    if (expected === undefined)
      throw new Error(`${path}:${start + 1}: a curl example without "# expect: <status>"`);
    examples.push({ line: start + 1, command, expect: Number(expected) });
  }
  return examples;
}

/** Sends one example's request; `env` gives the values of the page's `$VARIABLES`. */
export async function runExample(example: DocExample, env: Record<string, string>): Promise<ExampleReply> {
  const tokens = parse(example.command, (name) => {
    const value = env[name];
    if (value === undefined) throw new Error(`line ${example.line}: $${name} is not set for the example`);
    return value;
  });
  let method: string | undefined;
  let url: string | undefined;
  let body: string | undefined;
  const headers: Record<string, string> = {};
  for (let i = 1; i < tokens.length; i++) {
    const token = tokens[i];
    if (typeof token !== 'string')
      throw new Error(`line ${example.line}: shell syntax the runner does not run`);
    const next = () => {
      const value = tokens[++i];
      if (typeof value !== 'string') throw new Error(`line ${example.line}: ${token} needs a value`);
      return value;
    };
    if (token === '-s' || token === '--silent') continue;
    if (token === '-X' || token === '--request') method = next();
    else if (token === '-H' || token === '--header') {
      const header = next();
      const colon = header.indexOf(':');
      headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
    } else if (token === '-d' || token === '--data') body = next();
    else if (token.startsWith('-'))
      throw new Error(`line ${example.line}: curl option ${token} is not understood`);
    else if (url === undefined) url = token;
    else throw new Error(`line ${example.line}: a second URL ${token}`);
  }
  if (url === undefined) throw new Error(`line ${example.line}: no URL`);
  // curl's defaults: POST when there is a body, form content type unless one is given.
  const res = await fetch(url, {
    method: method ?? (body === undefined ? 'GET' : 'POST'),
    headers:
      body !== undefined && !headers['content-type']
        ? { ...headers, 'content-type': 'application/x-www-form-urlencoded' }
        : headers,
    ...(body !== undefined ? { body } : {}),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON: the text itself.
  }
  return { status: res.status, body: parsed };
}
