// A translated call whose provider answers 200 with a body its API does not document: the client
// gets 502 `translation_failed` in the error envelope, not a 200 carrying an error (which SDKs would
// try to read as a completion).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from '@aigw/testkit';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { type Harness, startHarness } from '../../test/harness.js';

let h: Harness | undefined;
let provider: Server;
let base = '';

beforeAll(async () => {
  // An "Anthropic" that answers every call 200 with a body that is not a Messages answer.
  provider = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(req.url?.includes('garbage') ? 'this is not json' : '[1, 2, 3]');
    });
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await h?.close();
  await new Promise((resolve) => provider.close(resolve));
});

describe('a translated answer the gateway cannot read', () => {
  test('is a 502 translation_failed, for chat completions and for the Messages front door', async ({
    nats,
  }) => {
    h = await startHarness(nats);
    for (const [path, host, body] of [
      [
        '/v1/chat/completions',
        `${base}/v1`,
        { model: 'claude-x', messages: [{ role: 'user', content: 'hi' }] },
      ],
      [
        '/v1/chat/completions',
        `${base}/garbage/v1`,
        { model: 'claude-x', messages: [{ role: 'user', content: 'hi' }] },
      ],
    ] as const) {
      const res = await fetch(`${h.base}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-service-provider': 'anthropic',
          'x-service-custom-host': host,
          authorization: 'Bearer sk-ant-test',
        },
        body: JSON.stringify(body),
      });
      const answer = (await res.json()) as { error?: { code?: string; type?: string } };
      expect([host, res.status, answer.error?.code]).toEqual([host, 502, 'translation_failed']);
    }
  });
});
