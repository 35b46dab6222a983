// Saved guardrails with a third-party check (`partner.acme`), end to end in control-plane mode: the
// partner (a real local HTTP server) gets the webhook body plus the partner's name and `policyId`,
// with the header values opened from the sealed envelope; its verdict passes or denies the request,
// a partner that does not answer in time fails the check, and an envelope that does not open fails
// closed without calling the partner. Inline and saved configs accept partner checks too.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Entity } from '@aigw/proto';
import { configHeadersAad, parseMasterKey, sealSecret, webhookHeadersAad } from '@aigw/secret-box';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type ControlPlaneGateway,
  managedTenant,
  savedConfig,
  savedGuardrail,
  startControlPlaneGateway,
  TEST_MASTER_KEY,
} from '../../test/control-plane-entities.js';

const ORG = randomUUID();
const WS = randomUUID();
const KEY = `aigw_${randomUUID()}`;
const SECRET = `Bearer partner-${randomUUID()}`;

interface Call {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Record<string, unknown>;
}

let gw: ControlPlaneGateway;
let partner: Server;
let partnerUrl: string;
const calls: Call[] = [];

/** A saved guardrail with one `partner.acme` check, its header sealed as the control plane does. */
function partnerGuardrail(
  slug: string,
  path: string,
  fields: { timeout?: number; sealWith?: Buffer } = {},
): Entity {
  const id = randomUUID();
  const parameters = {
    url: `${partnerUrl}${path}`,
    headers: {},
    policyId: `pol-${slug}`,
    ...(fields.timeout !== undefined && { timeout: fields.timeout }),
  };
  const key = fields.sealWith ?? parseMasterKey(TEST_MASTER_KEY);
  return savedGuardrail(
    id,
    ORG,
    WS,
    slug,
    { checks: [{ id: 'partner.acme', parameters }] },
    {
      encryptedHeaders: sealSecret(
        key,
        JSON.stringify({ '0': { authorization: SECRET } }),
        webhookHeadersAad(id),
      ),
    },
  );
}

/** A saved config whose inline guardrail holds a partner check, its header sealed for config version 2. */
function partnerConfig(slug: string): Entity {
  const id = randomUUID();
  const check = {
    id: 'partner.acme',
    parameters: { url: `${partnerUrl}/scan`, headers: {}, policyId: 'cfg-pol' },
  };
  const body = { provider: '@openai-prod', input_guardrails: [{ deny: true, checks: [check] }] };
  const headers = { 'input_guardrails.0.checks.0': { authorization: SECRET } };
  return savedConfig(id, ORG, WS, slug, body, {
    version: 2,
    encryptedHeaders: sealSecret(
      parseMasterKey(TEST_MASTER_KEY),
      JSON.stringify(headers),
      configHeadersAad(id, 2),
    ),
  });
}

function ask(config: unknown) {
  return fetch(`${gw.base}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-api-key': KEY,
      'x-service-config': typeof config === 'string' ? config : JSON.stringify(config),
    },
    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }] }),
  });
}

const withGuard = (slug: string) => ({ provider: '@openai-prod', input_guardrails: [slug] });

interface HookResults {
  hook_results: {
    before_request_hooks: {
      id: string;
      verdict: boolean;
      deny: boolean;
      checks: { id: string; verdict: boolean; error?: string; data?: unknown }[];
    }[];
  };
}

beforeAll(async () => {
  // Passes only with the sealed Authorization; `/deny` always answers false; `/slow` never answers.
  partner = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '';
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      calls.push({ path, headers: req.headers, body });
      if (path === '/slow') return;
      const verdict = path !== '/deny' && req.headers.authorization === SECRET;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ verdict, data: { policy: body.policyId } }));
    });
  });
  await new Promise<void>((resolve) => partner.listen(0, '127.0.0.1', resolve));
  partnerUrl = `http://127.0.0.1:${(partner.address() as AddressInfo).port}`;
  gw = await startControlPlaneGateway([], {}, { apiKeys: { openai: ['sk-managed'] } });
  gw.use([
    ...managedTenant(gw, { org: ORG, ws: WS, key: KEY }),
    partnerGuardrail('acme-pass', '/scan'),
    partnerGuardrail('acme-deny', '/deny'),
    partnerGuardrail('acme-slow', '/slow', { timeout: 200 }),
    partnerGuardrail('acme-foreign-key', '/scan', { sealWith: Buffer.alloc(32, 9) }),
    partnerConfig('partner-config'),
  ]);
});

afterAll(async () => {
  await gw?.close();
  partner?.closeAllConnections();
  await new Promise((resolve) => partner?.close(resolve));
});

beforeEach(() => {
  calls.length = 0;
  gw.mock.clear();
});

describe('saved guardrails with a partner check', () => {
  it('pass when the partner answers true; it receives policyId, its name and the sealed header in clear', async () => {
    const res = await ask(withGuard('acme-pass'));
    expect(res.status, await res.clone().text()).toBe(200);
    expect(gw.mock.requests).toHaveLength(1);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.path).toBe('/scan');
    expect(calls[0]?.headers.authorization).toBe(SECRET);
    expect(calls[0]?.body).toMatchObject({
      phase: 'input',
      partner: 'acme',
      policyId: 'pol-acme-pass',
      request: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }] },
    });
  });

  it('deny (446, the hook results naming the guardrail) when the partner answers false', async () => {
    const res = await ask(withGuard('acme-deny'));
    expect(res.status).toBe(446);
    const body = (await res.json()) as HookResults;
    expect(body.hook_results.before_request_hooks[0]).toMatchObject({
      id: 'acme-deny',
      verdict: false,
      deny: true,
      checks: [{ id: 'partner.acme', verdict: false, data: { policy: 'pol-acme-deny' } }],
    });
    expect(calls).toHaveLength(1);
    expect(gw.mock.requests).toEqual([]);
  });

  it('fail the check when the partner does not answer within the timeout', async () => {
    const res = await ask(withGuard('acme-slow'));
    expect(res.status).toBe(446);
    const body = (await res.json()) as HookResults;
    expect(body.hook_results.before_request_hooks[0]?.checks[0]).toMatchObject({
      id: 'partner.acme',
      verdict: false,
      error: 'the acme partner did not answer within 200 ms',
    });
    expect(calls.map((c) => c.path)).toEqual(['/slow']);
    expect(gw.mock.requests).toEqual([]);
  });

  it('fail closed (500 credentials_unavailable) when the envelope does not open: the partner is never called', async () => {
    const res = await ask(withGuard('acme-foreign-key'));
    const body = (await res.json()) as { error: { code: string; param: string; message: string } };
    expect(res.status, JSON.stringify(body)).toBe(500);
    expect(body.error).toMatchObject({
      code: 'credentials_unavailable',
      param: 'config.input_guardrails[0]',
    });
    expect(body.error.message).not.toContain(SECRET);
    expect(calls).toEqual([]);
    expect(gw.mock.requests).toEqual([]);
  });
});

describe('inline partner checks (x-service-config)', () => {
  it('are called like saved ones, with the headers the config gives', async () => {
    const check = {
      id: 'partner.acme',
      parameters: { url: `${partnerUrl}/scan`, policyId: 'inline-pol', headers: { authorization: SECRET } },
    };
    const res = await ask({ provider: '@openai-prod', input_guardrails: [{ deny: true, checks: [check] }] });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.body).toMatchObject({ partner: 'acme', policyId: 'inline-pol' });
    expect(calls[0]?.headers.authorization).toBe(SECRET);
  });

  it("in a saved config get back their sealed headers like a webhook check's", async () => {
    const res = await ask('partner-config');
    expect(res.status, await res.clone().text()).toBe(200);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.body).toMatchObject({ partner: 'acme', policyId: 'cfg-pol' });
    expect(calls[0]?.headers.authorization).toBe(SECRET);
  });
});
