// Acceptance: hostile custom hosts are refused end to end (the mock provider behind them receives
// nothing), and loopback works once allowlisted.
import { test } from '@aigw/testkit';
import { afterAll, describe, expect } from 'vitest';
import { type Harness, startHarness } from '../../test/harness.js';

const harnesses: Harness[] = [];

afterAll(async () => {
  await Promise.all(harnesses.map((h) => h.close()));
});

/** Custom hosts that must never be reached; `PORT` is the mock provider's port on loopback. */
const HOSTILE = [
  'http://127.0.0.1:PORT/v1',
  'http://127.1:PORT/v1',
  'http://127.0.1:PORT',
  'http://2130706433:PORT',
  'http://0x7f000001:PORT',
  'http://0x7f.0x0.0x0.0x1:PORT',
  'http://0177.0.0.1:PORT',
  'http://017700000001:PORT',
  'http://0:PORT',
  'http://0.0.0.0:PORT',
  'http://[::1]:PORT',
  'http://[::]:PORT',
  'http://[::ffff:127.0.0.1]:PORT',
  'http://[::ffff:7f00:1]:PORT',
  'http://[0:0:0:0:0:ffff:127.0.0.1]:PORT',
  'http://[::127.0.0.1]:PORT',
  'http://[64:ff9b::127.0.0.1]:PORT',
  'http://[2002:7f00:1::]:PORT',
  'http://localhost:PORT',
  'http://LOCALHOST.:PORT',
  'http://api.localhost:PORT',
  'http://169.254.169.254/latest/meta-data',
  'http://[::ffff:169.254.169.254]',
  'http://[fd00:ec2::254]',
  'http://10.0.0.1:PORT',
  'http://172.16.0.1:PORT',
  'http://172.31.255.255:PORT',
  'http://192.168.0.1:PORT',
  'http://100.64.0.1:PORT',
  'http://198.18.0.1:PORT',
  'http://192.0.0.1:PORT',
  'http://224.0.0.1:PORT',
  'http://239.255.255.250:PORT',
  'http://255.255.255.255:PORT',
  'http://240.0.0.1:PORT',
  'http://[fe80::1]:PORT',
  'http://[fc00::1]:PORT',
  'http://[ff02::1]:PORT',
  'http://user:pass@127.0.0.1:PORT',
  'http://example.com@127.0.0.1:PORT',
  'http://127.0.0.1:PORT#@example.com',
  'file:///etc/passwd',
  'gopher://127.0.0.1:PORT/_GET',
  'ftp://127.0.0.1:PORT',
  'ws://127.0.0.1:PORT',
  'javascript:alert(1)',
  'http://',
  '//127.0.0.1:PORT',
  'http://127.0.0.1:PORT\\@example.com',
  'http://%31%32%37.0.0.1:PORT',
];

describe('custom hosts', () => {
  test(`refuses ${HOSTILE.length} hostile hosts without reaching them`, async ({ nats }) => {
    const h = await startHarness(nats, { CUSTOM_HOST_ALLOWLIST: '' });
    harnesses.push(h);
    const port = String(h.mock.port);
    for (const template of HOSTILE) {
      const host = template.replaceAll('PORT', port);
      const res = await fetch(`${h.base}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          'x-service-provider': 'openai',
          'x-service-custom-host': host,
          authorization: 'Bearer sk-test',
        },
        body: '{}',
      });
      expect(res.status, host).toBe(400);
      expect(res.headers.get('x-service-gateway-error'), host).toBe('true');
      const { error } = (await res.json()) as { error: { code: string } };
      expect(['custom_host_blocked', 'invalid_header'], host).toContain(error.code);
    }
    expect(h.mock.requests).toEqual([]);
  });

  test('loopback works when allowlisted, by IP and by name', async ({ nats }) => {
    const byIp = await startHarness(nats, { CUSTOM_HOST_ALLOWLIST: '127.0.0.1' });
    const byName = await startHarness(nats, { CUSTOM_HOST_ALLOWLIST: 'localhost' });
    harnesses.push(byIp, byName);
    for (const [h, host] of [
      [byIp, `http://127.0.0.1:${byIp.mock.port}/v1`],
      [byName, `http://localhost:${byName.mock.port}/v1`],
    ] as const) {
      const res = await fetch(`${h.base}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          'x-service-provider': 'openai',
          'x-service-custom-host': host,
          authorization: 'Bearer sk-test',
          'content-type': 'application/json',
        },
        body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'allowed' }] }),
      });
      expect(res.status, host).toBe(200);
      expect(h.mock.requests).toHaveLength(1);
    }
  });
});
