// Third-party `partner.<name>` checks: validated by the config schema (defaults filled in) and called
// through the webhook caller, against a real local HTTP server and the real SSRF module.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Guardrail, parseConfig } from '@aigw/config-schema';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runGuardrails } from './run-guardrails.js';
import type { GuardrailContext, WebhookCall } from './types.js';
import { createWebhookCaller } from './webhook.js';
import { createWebhookHostCheck } from './webhook-host.js';

interface Seen {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

let server: http.Server;
let base: string;
const seen: Seen[] = [];

const answers: Record<string, { verdict: boolean; data?: unknown } | null> = {
  '/pass': { verdict: true, data: { score: 0.02 } },
  '/fail': { verdict: false, data: { category: 'jailbreak' } },
  '/slow': null,
};

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '';
      seen.push({ path, headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      const answer = answers[path];
      if (answer === null) return; // never answers
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  seen.length = 0;
});

const caller = createWebhookCaller({ checkHost: createWebhookHostCheck({ allowlist: ['127.0.0.1'] }) });

const ctx: GuardrailContext = {
  phase: 'input',
  requestJson: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }] },
  metadata: { team: 'red' },
  provider: 'openai',
};

/** An inline guardrail holding one partner check, as the config schema normalises it. */
function guardrail(parameters: Record<string, unknown>, deny = true): Guardrail {
  const result = parseConfig({
    input_guardrails: [{ deny, checks: [{ id: 'partner.acme', parameters }] }],
  });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  const parsed = result.config.settings.input_guardrails?.[0];
  if (parsed?.type !== 'inline') throw new Error('not an inline guardrail');
  return parsed;
}

describe('partner checks', () => {
  it('default to a 10000 ms timeout, which the caller is given', async () => {
    const g = guardrail({ url: `${base}/pass`, policyId: 'pol_1' });
    expect(g.type === 'inline' && g.checks[0]?.parameters).toMatchObject({ timeout: 10_000 });
    const calls: WebhookCall[] = [];
    const recording = async (call: WebhookCall) => {
      calls.push(call);
      return { verdict: true };
    };
    await runGuardrails([g], ctx, { webhook: recording });
    expect(calls.map((c) => c.timeoutMs)).toEqual([10_000]);
  });

  it("POST the webhook check's body plus the partner's name and policyId, with the check's headers", async () => {
    const g = guardrail({ url: `${base}/pass`, policyId: 'pol_1', headers: { authorization: 'Bearer p' } });
    const outcome = await runGuardrails([g], ctx, { webhook: caller });
    expect(outcome).toMatchObject({ verdict: true, denied: false });
    expect(outcome.results[0]?.checks[0]).toMatchObject({
      id: 'partner.acme',
      verdict: true,
      explanation: 'the acme partner passed the request',
      data: { score: 0.02 },
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.body).toEqual({
      phase: 'input',
      request: ctx.requestJson,
      metadata: { team: 'red' },
      partner: 'acme',
      policyId: 'pol_1',
    });
    expect(seen[0]?.headers.authorization).toBe('Bearer p');
  });

  it("answers false: the check fails and the guardrail's deny applies", async () => {
    const denied = await runGuardrails([guardrail({ url: `${base}/fail`, policyId: 'p' })], ctx, {
      webhook: caller,
    });
    expect(denied).toMatchObject({ verdict: false, denied: true });
    expect(denied.results[0]?.checks[0]).toMatchObject({ verdict: false, data: { category: 'jailbreak' } });
    const reported = await runGuardrails([guardrail({ url: `${base}/fail`, policyId: 'p' }, false)], ctx, {
      webhook: caller,
    });
    expect(reported).toMatchObject({ verdict: false, denied: false });
  });

  it('no answer within the timeout, or a refused URL, fails the check', async () => {
    const slow = await runGuardrails([guardrail({ url: `${base}/slow`, policyId: 'p', timeout: 100 })], ctx, {
      webhook: caller,
    });
    expect(slow.denied).toBe(true);
    expect(slow.results[0]?.checks[0]).toMatchObject({
      verdict: false,
      explanation: 'the acme partner call failed',
      error: 'the acme partner did not answer within 100 ms',
    });
    seen.length = 0;
    const refused = await runGuardrails([guardrail({ url: 'http://10.0.0.1/scan', policyId: 'p' })], ctx, {
      webhook: caller,
    });
    expect(refused.denied).toBe(true);
    expect(refused.results[0]?.checks[0]?.error).toMatch(/^the acme partner url is refused/);
    expect(seen).toEqual([]);
  });
});
