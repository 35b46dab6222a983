// The shell examples of a docs page, run as written: every ```sh block that calls curl is one example
// (the block that only exports the page's variables is left out: the test sets them to the stack's),
// run by bash with `set -euo pipefail`, so a `curl --fail-with-body` that gets an error fails it.
// `runAnswers` also gives each curl call's status and body. A page that drifts from the API fails.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface DocExample {
  /** 1-based line of the block in the page. */
  readonly line: number;
  readonly script: string;
}

/** The runnable examples of a markdown page, in page order (the first, the variables, left out). */
export function docExamples(path: string | URL): DocExample[] {
  const text = readFileSync(path, 'utf8');
  const blocks = [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => ({
    line: text.slice(0, m.index).split('\n').length,
    script: m[1] ?? '',
  }));
  if (!blocks[0]?.script.includes('export '))
    throw new Error(`${path}: the first sh block must set the variables`);
  return blocks.slice(1);
}

export type ExampleResult =
  | { readonly ok: true; readonly stdout: string }
  | { readonly ok: false; readonly stdout: string; readonly stderr: string };

/** Runs one example with only `env` (and PATH) in its environment. */
export async function runExample(example: DocExample, env: Record<string, string>): Promise<ExampleResult> {
  try {
    const { stdout } = await run(
      'bash',
      ['--norc', '--noprofile', '-c', `set -euo pipefail\n${example.script}`],
      {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
        timeout: 20_000,
      },
    );
    return { ok: true, stdout };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message?: string };
    return { ok: false, stdout: e.stdout ?? '', stderr: e.stderr ?? e.message ?? '' };
  }
}

export interface Answer {
  readonly status: number;
  /** The body as JSON, or its text (an SSE answer). */
  readonly body: unknown;
}

/** Runs one example and gives every curl call's status and body (curl wrapped to print the status). */
export async function runAnswers(example: DocExample, env: Record<string, string>): Promise<Answer[]> {
  const wrapper = `curl() { command curl -sS -w '\\n@@status=%{http_code}@@\\n' "$@"; }\nset -euo pipefail\n`;
  const { stdout } = await run('bash', ['--norc', '--noprofile', '-c', wrapper + example.script], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    timeout: 30_000,
  });
  return [...stdout.matchAll(/([\s\S]*?)\n@@status=(\d{3})@@\n/g)].map((m) => {
    const text = (m[1] ?? '').trim();
    let body: unknown = text;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      // not JSON (an SSE answer): the text
    }
    return { status: Number(m[2]), body };
  });
}

/** The example's output as JSON (the last JSON document it printed). */
// biome-ignore lint/suspicious/noExplicitAny: JSON answers are read field by field in the tests
export function lastJson(stdout: string): any {
  const lines = stdout.trim().split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    try {
      return JSON.parse(lines.slice(i).join('\n'));
    } catch {
      // a multi-line document: try from an earlier line
    }
  }
  throw new Error(`no JSON in the output: ${stdout.slice(0, 500)}`);
}
