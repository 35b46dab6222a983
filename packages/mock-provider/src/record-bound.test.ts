import { describe, expect, it } from 'vitest';
import { OPENAI_AUTH, postJson } from '../test/helpers.js';
import { createMockProvider } from './server.js';

describe('maxRecorded', () => {
  it('keeps only the newest recordings, and none with 0, while still answering', async () => {
    const bounded = await createMockProvider({ maxRecorded: 2 });
    const silent = await createMockProvider({ maxRecorded: 0 });
    try {
      for (const content of ['one', 'two', 'three']) {
        const body = { model: 'gpt-4o', messages: [{ role: 'user', content }] };
        expect((await postJson(`${bounded.url}/v1/chat/completions`, body, OPENAI_AUTH)).status).toBe(200);
        expect((await postJson(`${silent.url}/v1/chat/completions`, body, OPENAI_AUTH)).status).toBe(200);
      }
      expect(
        bounded.requests.map((r) => (r.json as { messages: [{ content: string }] }).messages[0].content),
      ).toEqual(['two', 'three']);
      expect(silent.requests).toEqual([]);
    } finally {
      await Promise.all([bounded.close(), silent.close()]);
    }
  });
});

describe('response recording', () => {
  it('keeps the exact bytes the mock wrote, for JSON and for streams', async () => {
    const mock = await createMockProvider({ chunks: 3 });
    try {
      const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'byte for byte' }] };
      const plain = await postJson(`${mock.url}/v1/chat/completions`, body, OPENAI_AUTH);
      const plainBytes = Buffer.from(await plain.arrayBuffer());
      const stream = await postJson(
        `${mock.url}/v1/chat/completions`,
        { ...body, stream: true },
        OPENAI_AUTH,
      );
      const streamBytes = Buffer.from(await stream.arrayBuffer());
      const [first, second] = mock.requests;
      expect(first?.response?.status).toBe(200);
      expect(first?.response?.body.equals(plainBytes)).toBe(true);
      expect(second?.response?.body.equals(streamBytes)).toBe(true);
      expect(streamBytes.toString()).toContain('data: [DONE]');
    } finally {
      await mock.close();
    }
  });
});
