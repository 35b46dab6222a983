// A saved guardrail whose webhook checks an Authorization header keeps working through the gateway
// after the admin API round trip a client naturally does: GET it (header values masked), change
// ordinary fields (the name, the webhook URL's query), PUT the body back. The gateway's next calls to
// the webhook still carry the original secret, so the guarded request is still served; before the
// fix the gateway sent the mask (`****oken`) and the deny-on-fail guardrail refused the request.
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { createTenant, pollUntil, logsTest as test } from './logs-stack.test-support.js';

const SECRET = 'Bearer whsec-9f8e7d6c5b4a3210-webhook-token';

interface HookCall {
  readonly url: string;
  readonly authorization: string | undefined;
}

const calls: HookCall[] = [];
/** Passes only requests that carry the real secret: a mask sent instead fails the check. */
const hook = createServer((req: IncomingMessage, res) => {
  calls.push({ url: req.url ?? '', authorization: req.headers.authorization });
  req.resume();
  req.on('end', () => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ verdict: req.headers.authorization === SECRET }));
  });
});
let hookBase = '';

beforeAll(async () => {
  hook.listen(0, '127.0.0.1');
  await once(hook, 'listening');
  hookBase = `http://127.0.0.1:${(hook.address() as AddressInfo).port}`;
});
afterAll(async () => {
  hook.close();
  await once(hook, 'close');
});

describe('a saved guardrail sent back masked through the admin API', () => {
  test('keeps calling its webhook with the real Authorization header', async ({ stack }) => {
    const { admin } = stack;
    const tenant = await createTenant(admin, stack.mock, 'masked-hook');
    const { key } = await admin.createKey(tenant.workspaceId, 'guarded caller');
    const guardrail = await admin.post('/guardrails', {
      name: 'Hooked',
      workspace_id: tenant.workspaceId,
      checks: [
        {
          id: 'webhook',
          parameters: { url: `${hookBase}/guard?v=1`, headers: { Authorization: SECRET } },
        },
      ],
      actions: { deny: true },
    });
    const config = JSON.stringify({ provider: tenant.provider, input_guardrails: [guardrail.slug] });
    const send = async () => {
      const res = await fetch(`${stack.gatewayBase}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-api-key': key, 'x-service-config': config },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
        signal: AbortSignal.timeout(10_000),
      });
      await res.arrayBuffer();
      return res.status;
    };
    // Retried until the gateway's snapshot has the key and the guardrail.
    await pollUntil(send, (status) => status === 200, {
      boundMs: 15_000,
      intervalMs: 25,
      what: 'the gateway running the saved guardrail',
    });
    expect(calls.filter((c) => c.url === '/guard?v=1').at(-1)?.authorization).toBe(SECRET);

    const got = await admin.expect(200, 'GET', `/guardrails/${guardrail.id}`);
    expect(got.checks[0].parameters.headers).toEqual({ authorization: '****oken' });
    const checks = [
      { ...got.checks[0], parameters: { ...got.checks[0].parameters, url: `${hookBase}/guard?v=2` } },
    ];
    await admin.put(`/guardrails/${guardrail.id}`, {
      name: 'Hooked, renamed',
      checks,
      actions: got.actions,
      async: got.async,
    });

    // The new version is in use once the webhook sees its URL; that call carries the real secret.
    const { value: status } = await pollUntil(send, () => calls.some((c) => c.url === '/guard?v=2'), {
      boundMs: 15_000,
      intervalMs: 25,
      what: 'the gateway running the updated guardrail',
    });
    const updated = calls.filter((c) => c.url === '/guard?v=2');
    expect(updated.map((c) => c.authorization)).toEqual(updated.map(() => SECRET));
    expect(status).toBe(200);
    expect(await send()).toBe(200);
  });
});
