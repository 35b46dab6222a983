import { describe, expect, it } from 'vitest';
import { json, OPENAI_AUTH, useMock } from '../../test/helpers.js';

const mock = useMock();
const binary = new Uint8Array([0, 1, 2, 13, 10, 45, 45, 250, 251, 252]);

function upload(form: FormData, path = '/v1/files') {
  return fetch(`${mock().url}${path}`, { method: 'POST', headers: OPENAI_AUTH, body: form });
}

describe('OpenAI files', () => {
  it('parses a multipart upload, answers a file object and records the parts', async () => {
    const form = new FormData();
    form.append('purpose', 'batch');
    form.append('file', new Blob([binary], { type: 'application/jsonl' }), 'input.jsonl');
    const res = await upload(form);
    expect(res.status).toBe(200);
    const file = await json(res);
    expect(file).toMatchObject({
      object: 'file',
      bytes: binary.length,
      filename: 'input.jsonl',
      purpose: 'batch',
      status: 'processed',
    });
    expect(file.id).toMatch(/^file-/);
    const parts = mock().requests[0]?.parts ?? [];
    expect(parts.map((p) => p.name)).toEqual(['purpose', 'file']);
    expect(parts[1]).toMatchObject({ filename: 'input.jsonl', contentType: 'application/jsonl' });
    expect(new Uint8Array(parts[1]!.data)).toEqual(binary);

    const list = await json(await fetch(`${mock().url}/v1/files`, { headers: OPENAI_AUTH }));
    expect(list).toMatchObject({ object: 'list', has_more: false, first_id: file.id, last_id: file.id });
    expect(list.data).toEqual([file]);
    expect(await json(await fetch(`${mock().url}/v1/files/${file.id}`, { headers: OPENAI_AUTH }))).toEqual(
      file,
    );
    const content = await fetch(`${mock().url}/v1/files/${file.id}/content`, { headers: OPENAI_AUTH });
    expect(new Uint8Array(await content.arrayBuffer())).toEqual(binary);
    const deleted = await fetch(`${mock().url}/v1/files/${file.id}`, {
      method: 'DELETE',
      headers: OPENAI_AUTH,
    });
    expect(await json(deleted)).toEqual({ id: file.id, object: 'file', deleted: true });
    expect((await fetch(`${mock().url}/v1/files/${file.id}`, { headers: OPENAI_AUTH })).status).toBe(404);
  });

  it('filters the list by purpose', async () => {
    for (const purpose of ['batch', 'fine-tune']) {
      const form = new FormData();
      form.append('purpose', purpose);
      form.append('file', new Blob(['x']), `${purpose}.jsonl`);
      await upload(form);
    }
    const list = await json(
      await fetch(`${mock().url}/v1/files?purpose=fine-tune`, { headers: OPENAI_AUTH }),
    );
    expect(list.data.map((f: { filename: string }) => f.filename)).toEqual(['fine-tune.jsonl']);
  });

  it('rejects non-multipart bodies and missing fields with OpenAI 400s', async () => {
    const notMultipart = await fetch(`${mock().url}/v1/files`, {
      method: 'POST',
      headers: { ...OPENAI_AUTH, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(notMultipart.status).toBe(400);
    expect((await json(notMultipart)).error.message).toMatch(/expected multipart\/form-data/);
    const noPurpose = new FormData();
    noPurpose.append('file', new Blob(['x']), 'a.jsonl');
    expect((await json(await upload(noPurpose))).error.param).toBe('purpose');
    const noFile = new FormData();
    noFile.append('purpose', 'batch');
    expect((await json(await upload(noFile))).error.param).toBe('file');
    const malformed = await fetch(`${mock().url}/v1/files`, {
      method: 'POST',
      headers: { ...OPENAI_AUTH, 'content-type': 'multipart/form-data; boundary=zz' },
      body: '--zz\r\nno-terminator',
    });
    expect(malformed.status).toBe(400);
    expect(mock().requests.at(-1)?.parts).toBeUndefined();
  });

  it('transcribes multipart audio uploads in json and text formats', async () => {
    const form = new FormData();
    form.append('model', 'whisper-1');
    form.append('file', new Blob([binary], { type: 'audio/wav' }), 'clip.wav');
    const res = await upload(form, '/v1/audio/transcriptions');
    expect(await json(res)).toEqual({ text: `Transcript of clip.wav (${binary.length} bytes).` });
    form.append('response_format', 'text');
    const text = await upload(form, '/v1/audio/transcriptions');
    expect(text.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await text.text()).toBe(`Transcript of clip.wav (${binary.length} bytes).`);
    const noModel = new FormData();
    noModel.append('file', new Blob([binary]), 'clip.wav');
    expect((await upload(noModel, '/v1/audio/transcriptions')).status).toBe(400);
  });
});
