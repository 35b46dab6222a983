// Every built-in guardrail check through the gateway app against the mock provider, table-driven:
// passing (provider answer unchanged, 200), failing with deny (446) and without (246), on input and
// on output (the mock echoes the user's text, so one text drives either phase), and
// GUARDRAILS_ENABLED=OFF turning them all off.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GuardrailStage } from '@aigw/proto';
import { type NatsFixture, test } from '@aigw/testkit';
import { afterAll, describe, expect } from 'vitest';
import { eventFor, type Harness, startHarness } from '../../test/harness.js';

type Phase = 'input' | 'output';

/** What one request sends: the user's text (echoed back as the answer), and optionally a model and metadata. */
interface Ask {
  readonly content: string;
  readonly model?: string;
  readonly metadata?: Record<string, string>;
}

interface Row {
  readonly id: string;
  /** Tells rows of one check apart in test names. */
  readonly label?: string;
  readonly parameters?: Record<string, unknown>;
  readonly pass: Ask;
  readonly fail: Ask;
}

interface CheckJson {
  id: string;
  verdict: boolean;
  explanation: string;
  data?: unknown;
  error?: string;
}
interface HookJson {
  verdict: boolean;
  deny: boolean;
  checks: CheckJson[];
}
interface HookResults {
  before_request_hooks: HookJson[];
  after_request_hooks: HookJson[];
}

/** Text a webhook refuses (in the request on input, in the answer on output). */
const WEBHOOK_REJECT = 'webhook-reject';
const webhookCalls: Array<{ phase: string; path: string }> = [];
let webhook: Server | undefined;
let webhookUrl = '';

const ROWS: readonly Row[] = [
  {
    id: 'regex_match',
    label: 'matching',
    parameters: { pattern: '^order #\\d{4}$' },
    pass: { content: 'order #1234' },
    fail: { content: 'order #12' },
  },
  {
    id: 'regex_match',
    label: 'not matching',
    parameters: { pattern: 'secret', not: true },
    pass: { content: 'nothing to hide' },
    fail: { content: 'the secret plan' },
  },
  {
    id: 'contains',
    label: 'all',
    parameters: { words: ['alpha', 'beta'], operator: 'all' },
    pass: { content: 'Alpha then beta' },
    fail: { content: 'alpha alone' },
  },
  {
    id: 'contains',
    label: 'none',
    parameters: { words: ['password'], operator: 'none' },
    pass: { content: 'hello there' },
    fail: { content: 'my password is hunter2' },
  },
  {
    id: 'not_contains',
    parameters: { words: ['drop table', 'rm -rf'], operator: 'any' },
    pass: { content: 'select one row' },
    fail: { content: 'please DROP TABLE users' },
  },
  {
    id: 'word_count',
    parameters: { min: 2, max: 4 },
    pass: { content: 'three short words' },
    fail: { content: 'one two three four five six' },
  },
  {
    id: 'character_count',
    // 11 characters in 13 UTF-8 bytes: characters are counted, not bytes.
    parameters: { min: 3, max: 11 },
    pass: { content: 'héllo wörld' },
    fail: { content: 'way more than eleven characters' },
  },
  {
    id: 'json_schema',
    parameters: {
      schema: {
        type: 'object',
        required: ['name', 'age'],
        properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } },
      },
    },
    pass: { content: '{"name":"Ada","age":36}' },
    fail: { content: '{"name":"Ada","age":-1}' },
  },
  {
    id: 'valid_json',
    pass: { content: '```json\n{"ok":[1,2,3]}\n```' },
    fail: { content: '{"ok":[1,2,3]' },
  },
  {
    id: 'pii',
    label: 'email',
    parameters: { categories: ['email'] },
    pass: { content: 'write to the support desk at example dot com' },
    fail: { content: 'write to jane.doe@example.com please' },
  },
  {
    id: 'pii',
    label: 'phone',
    parameters: { categories: ['phone'] },
    pass: { content: 'call extension 42' },
    fail: { content: 'call me on +44 20 7946 0958 tonight' },
  },
  {
    // The passing number is a card's shape with a wrong Luhn digit: only Luhn tells them apart.
    id: 'pii',
    label: 'credit_card',
    parameters: { categories: ['credit_card'] },
    pass: { content: 'card 4111 1111 1111 1112 on file' },
    fail: { content: 'card 4111 1111 1111 1111 on file' },
  },
  {
    // Likewise an IBAN with wrong check digits passes; a valid one fails.
    id: 'pii',
    label: 'iban',
    parameters: { categories: ['iban'] },
    pass: { content: 'pay GB00 WEST 1234 5698 7654 32 now' },
    fail: { content: 'pay GB82 WEST 1234 5698 7654 32 now' },
  },
  {
    id: 'pii',
    label: 'ip_address',
    parameters: { categories: ['ip_address'] },
    pass: { content: 'version 1.2.3 of the tool' },
    fail: { content: 'the server at 192.168.10.20 is down' },
  },
  {
    id: 'model_allowlist',
    parameters: { models: ['gpt-4o-mini'] },
    pass: { content: 'hello', model: 'gpt-4o-mini' },
    fail: { content: 'hello', model: 'gpt-4o' },
  },
  {
    id: 'required_metadata_keys',
    parameters: { keys: ['team', 'ticket'] },
    pass: { content: 'hello', metadata: { team: 'search', ticket: 'T-1' } },
    fail: { content: 'hello', metadata: { team: 'search' } },
  },
  {
    id: 'webhook',
    pass: { content: 'a harmless question' },
    fail: { content: `please ${WEBHOOK_REJECT} this` },
  },
];

const CASES = ROWS.flatMap((row) =>
  (['input', 'output'] as const).map((phase) => ({
    ...row,
    phase,
    name: `${phase} ${row.id}${row.label ? ` ${row.label}` : ''}`,
  })),
);

let h: Harness | undefined;
let off: Harness | undefined;

async function harness(nats: NatsFixture): Promise<Harness> {
  await startWebhook();
  h ??= await startHarness(nats);
  return h;
}

/** A local guardrail webhook (127.0.0.1 is on the harness's allowlist): refuses WEBHOOK_REJECT. */
async function startWebhook(): Promise<void> {
  if (webhook) return;
  webhook = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const payload = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        phase: string;
        request: unknown;
        response?: unknown;
      };
      webhookCalls.push({ phase: payload.phase, path: req.url ?? '' });
      const judged = JSON.stringify(payload.phase === 'output' ? payload.response : payload.request);
      const verdict = !judged.includes(WEBHOOK_REJECT);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ verdict, data: { judged: payload.phase } }));
    });
  });
  await new Promise<void>((resolve) => webhook?.listen(0, '127.0.0.1', resolve));
  webhookUrl = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/guard?tenant=t1`;
}

afterAll(async () => {
  await h?.close();
  await off?.close();
  await new Promise((resolve) => (webhook ? webhook.close(resolve) : resolve(undefined)));
});

function check(row: Row): Record<string, unknown> {
  const parameters = row.id === 'webhook' ? { url: webhookUrl, timeout: 5_000 } : row.parameters;
  return { id: row.id, ...(parameters ? { parameters } : {}) };
}

function configFor(gw: Harness, row: Row, phase: Phase, deny: boolean): Record<string, unknown> {
  return {
    provider: 'openai',
    api_key: 'sk-guard',
    custom_host: `${gw.mock.url}/v1`,
    [`${phase}_guardrails`]: [{ deny, checks: [check(row)] }],
  };
}

async function send(gw: Harness, config: unknown, ask: Ask, trace = randomUUID(), stream = false) {
  const calls = gw.mock.requests.length;
  const res = await fetch(`${gw.base}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-config': JSON.stringify(config),
      'x-service-trace-id': trace,
      ...(ask.metadata ? { 'x-service-metadata': JSON.stringify(ask.metadata) } : {}),
    },
    body: JSON.stringify({
      model: ask.model ?? 'gpt-4o',
      messages: [{ role: 'user', content: ask.content }],
      ...(stream ? { stream: true } : {}),
    }),
  });
  const text = await res.text();
  const called = gw.mock.requests.length - calls;
  const provider = called > 0 ? gw.mock.requests.at(-1)?.response?.body.toString() : undefined;
  return { res, text, called, provider };
}

/** The one check's result in the hooks of `phase`; the other phase ran nothing. */
function checkResult(hooks: HookResults, phase: Phase, deny: boolean): CheckJson | undefined {
  const [ran, idle] =
    phase === 'input'
      ? [hooks.before_request_hooks, hooks.after_request_hooks]
      : [hooks.after_request_hooks, hooks.before_request_hooks];
  expect(idle).toEqual([]);
  expect(ran).toHaveLength(1);
  expect(ran[0]).toMatchObject({ verdict: false, deny });
  expect(ran[0]?.checks).toHaveLength(1);
  return ran[0]?.checks[0];
}

describe('every built-in guardrail check end to end', () => {
  test.for(CASES)('$name: passing leaves the answer as the provider sent it', async (row, { nats }) => {
    const gw = await harness(nats);
    const webhooks = webhookCalls.length;
    for (const deny of [true, false]) {
      const { res, text, called, provider } = await send(gw, configFor(gw, row, row.phase, deny), row.pass);
      expect(res.status).toBe(200);
      expect(called).toBe(1);
      expect(text).toBe(provider);
      expect(JSON.parse(text)).not.toHaveProperty('hook_results');
      expect(res.headers.get('x-service-gateway-error')).toBeNull();
    }
    if (row.id === 'webhook') {
      expect(webhookCalls.slice(webhooks)).toEqual([
        { phase: row.phase, path: '/guard?tenant=t1' },
        { phase: row.phase, path: '/guard?tenant=t1' },
      ]);
    }
  });

  test.for(CASES)('$name: failing with deny answers 446 with the results', async (row, { nats }) => {
    const gw = await harness(nats);
    const trace = randomUUID();
    const { res, text, called } = await send(gw, configFor(gw, row, row.phase, true), row.fail, trace);
    expect(res.status).toBe(446);
    expect(res.headers.get('x-service-gateway-error')).toBe('true');
    expect(res.headers.get('x-service-last-used-option-index')).toBe('config');
    // A denied input never reaches the provider; output checks need its answer.
    expect(called).toBe(row.phase === 'input' ? 0 : 1);
    const body = JSON.parse(text) as { error: { code: string; type: string }; hook_results: HookResults };
    expect(body.error).toMatchObject({ code: 'guardrail_denied', type: 'guardrail_error' });
    expect(body).not.toHaveProperty('choices');
    const result = checkResult(body.hook_results, row.phase, true);
    expect(result).toMatchObject({ id: row.id, verdict: false });
    expect(result?.error).toBeUndefined();
    const event = await eventFor(gw, trace);
    expect(event.statusCode).toBe(446);
    expect(event.attempts).toHaveLength(row.phase === 'input' ? 0 : 1);
    expect(event.guardrailResults).toMatchObject([
      {
        stage: row.phase === 'input' ? GuardrailStage.INPUT : GuardrailStage.OUTPUT,
        verdict: false,
        denied: true,
        checks: [{ checkId: row.id, verdict: false, errored: false }],
      },
    ]);
  });

  test.for(CASES)(
    "$name: failing without deny answers 246 with the provider's body and the results",
    async (row, { nats }) => {
      const gw = await harness(nats);
      const { res, text, called, provider } = await send(gw, configFor(gw, row, row.phase, false), row.fail);
      expect(res.status).toBe(246);
      expect(res.headers.get('x-service-gateway-error')).toBeNull();
      expect(called).toBe(1);
      const { hook_results, ...rest } = JSON.parse(text) as { hook_results: HookResults };
      expect(rest).toEqual(JSON.parse(provider ?? 'null'));
      expect(rest).toMatchObject({ object: 'chat.completion' });
      const result = checkResult(hook_results, row.phase, false);
      expect(result).toMatchObject({ id: row.id, verdict: false });
      expect(result?.error).toBeUndefined();
    },
  );
});

describe('every built-in check on a streamed answer', () => {
  // Output checks read the stream's concatenated content; a stream is never rewritten, so a
  // failure without deny is a 246 with the provider's bytes.
  test.for(CASES)(
    '$name: pass 200, deny 446, no deny 246 with the stream unchanged',
    async (row, { nats }) => {
      const gw = await harness(nats);
      const passed = await send(gw, configFor(gw, row, row.phase, true), row.pass, randomUUID(), true);
      expect(passed.res.status).toBe(200);
      expect(passed.res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(passed.called).toBe(1);
      expect(passed.text).toBe(passed.provider);

      const denied = await send(gw, configFor(gw, row, row.phase, true), row.fail, randomUUID(), true);
      expect(denied.res.status).toBe(446);
      expect(denied.called).toBe(row.phase === 'input' ? 0 : 1);
      const body = JSON.parse(denied.text) as { hook_results: HookResults };
      expect(checkResult(body.hook_results, row.phase, true)).toMatchObject({ id: row.id, verdict: false });

      const soft = await send(gw, configFor(gw, row, row.phase, false), row.fail, randomUUID(), true);
      expect(soft.res.status).toBe(246);
      expect(soft.res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(soft.called).toBe(1);
      expect(soft.text).toBe(soft.provider);
    },
  );
});

describe('the webhook check and SSRF', () => {
  test('a webhook URL outside the allowlist in a private range fails closed without being called', async ({
    nats,
  }) => {
    const gw = await harness(nats);
    const webhooks = webhookCalls.length;
    // Loopback too, but not the allowlisted 127.0.0.1: the SSRF rules refuse it before any connection.
    const port = new URL(webhookUrl).port;
    const config = {
      provider: 'openai',
      api_key: 'sk-guard',
      custom_host: `${gw.mock.url}/v1`,
      input_guardrails: [
        { deny: true, checks: [{ id: 'webhook', parameters: { url: `http://127.0.0.2:${port}/` } }] },
      ],
    };
    const { res, text, called } = await send(gw, config, { content: 'a harmless question' });
    expect(res.status).toBe(446);
    expect(called).toBe(0);
    const body = JSON.parse(text) as { hook_results: HookResults };
    const result = checkResult(body.hook_results, 'input', true);
    expect(result).toMatchObject({ id: 'webhook', verdict: false });
    expect(result?.error).toMatch(/^the webhook url is refused: webhook url .*127\.0\.0\.2/);
    expect(webhookCalls.length).toBe(webhooks);
  });
});

describe('GUARDRAILS_ENABLED=OFF', () => {
  test.for((['input', 'output'] as const).map((phase) => ({ phase })))(
    'denying $phase guardrails of every check are not run',
    async ({ phase }, { nats }) => {
      await startWebhook();
      off ??= await startHarness(nats, { GUARDRAILS_ENABLED: 'OFF' });
      const webhooks = webhookCalls.length;
      const config = {
        provider: 'openai',
        api_key: 'sk-guard',
        custom_host: `${off.mock.url}/v1`,
        [`${phase}_guardrails`]: ROWS.map((row) => ({ deny: true, checks: [check(row)] })),
      };
      // Fails every row's check (model and metadata from the failing rows).
      const ask: Ask = {
        content: `my password is 4111 1111 1111 1111 ${WEBHOOK_REJECT} at jane@example.com`,
        model: 'gpt-4o',
        metadata: {},
      };
      const trace = randomUUID();
      const { res, text, called, provider } = await send(off, config, ask, trace);
      expect(res.status).toBe(200);
      expect(called).toBe(1);
      expect(text).toBe(provider);
      expect(webhookCalls.length).toBe(webhooks);
      const event = await eventFor(off, trace);
      expect(event.guardrailResults).toEqual([]);
    },
  );

  test('a streamed answer with output guardrails keeps streaming: nothing waits for its end', async ({
    nats,
  }) => {
    off ??= await startHarness(nats, { GUARDRAILS_ENABLED: 'OFF' });
    const controller = new AbortController();
    const res = await fetch(`${off.base}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-service-config': JSON.stringify({
          provider: 'openai',
          api_key: 'sk-guard',
          custom_host: `${off.mock.url}/v1`,
          output_guardrails: [{ deny: true, checks: [{ id: 'valid_json' }] }],
        }),
        // The mock sends its first chunk, then holds the stream open: a gateway that buffered the
        // answer for the (disabled) guardrails would never answer.
        'x-mock-stall-after-chunks': '1',
      },
      body: JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'a b c' }] }),
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    const reader = res.body?.getReader();
    const first = await reader?.read();
    expect(new TextDecoder().decode(first?.value)).toMatch(/^data: /);
    controller.abort();
  });
});
