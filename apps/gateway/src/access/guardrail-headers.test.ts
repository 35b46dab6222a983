// Opening the sealed webhook headers of saved guardrails: the owner binding, the per-version cache, refusals.
import { createLogger } from '@aigw/runtime';
import { configHeadersAad, sealSecret, webhookHeadersAad } from '@aigw/secret-box';
import { describe, expect, it } from 'vitest';
import { GuardrailHeaderStore, HeadersUnavailable } from './guardrail-headers.js';

const KEY = Buffer.alloc(32, 3);
const ID = '2c1f6f4e-0a43-4c55-9f0e-3d7c2b1a0f99';
const HEADERS = { '0': { authorization: 'Bearer hook-secret-123456' } };
const log = createLogger({ app: 'test', level: 'silent' });

function store(key: Buffer | null = KEY) {
  return new GuardrailHeaderStore(key === null ? undefined : key.toString('base64'), log);
}

const sealed = (value: unknown, id = ID, key = KEY) =>
  sealSecret(key, JSON.stringify(value), webhookHeadersAad(id));

describe('GuardrailHeaderStore', () => {
  it('opens the envelope of the guardrail it was sealed for', () => {
    expect(store().open(ID, 1, sealed(HEADERS))).toEqual(HEADERS);
  });

  it('keeps what it opened per id and version: the same version is not opened again', () => {
    const headers = store();
    expect(headers.open(ID, 1, sealed(HEADERS))).toEqual(HEADERS);
    // Garbage under the same version still answers the kept headers; a new version is opened.
    expect(headers.open(ID, 1, Buffer.alloc(40))).toEqual(HEADERS);
    expect(headers.open(ID, 2, Buffer.alloc(40))).toBeInstanceOf(HeadersUnavailable);
  });

  it('refuses another key, another owner, a bad shape, and a gateway without MASTER_KEY, never naming a value', () => {
    const refusals = [
      store().open(ID, 1, sealed(HEADERS, ID, Buffer.alloc(32, 4))),
      store().open(ID, 1, sealed(HEADERS, '00000000-0000-4000-8000-000000000000')),
      store().open(ID, 1, sealed([HEADERS])),
      store().open(ID, 1, sealed({ '0': { authorization: 5 } })),
      store(null).open(ID, 1, sealed(HEADERS)),
    ];
    for (const refusal of refusals) {
      expect(refusal).toBeInstanceOf(HeadersUnavailable);
      expect((refusal as Error).message).not.toContain('hook-secret');
    }
    expect((refusals[4] as Error).message).toContain('MASTER_KEY');
  });

  it("opens a config's envelope under the AAD of its config version, keyed by check path", () => {
    const byPath = {
      'targets.0.input_guardrails.1.checks.2': { authorization: 'Bearer hook-secret-123456' },
    };
    const envelope = sealSecret(KEY, JSON.stringify(byPath), configHeadersAad(ID, 3));
    expect(store().open(ID, 1, envelope, { kind: 'config', aad: configHeadersAad(ID, 3) })).toEqual(byPath);
    const refused = store().open(ID, 1, envelope, { kind: 'config', aad: configHeadersAad(ID, 2) });
    expect(refused).toBeInstanceOf(HeadersUnavailable);
    expect((refused as Error).message).toContain(`config ${ID}`);
    // The default owner is a guardrail: a config's envelope does not open as one.
    expect(store().open(ID, 1, envelope)).toBeInstanceOf(HeadersUnavailable);
  });
});
