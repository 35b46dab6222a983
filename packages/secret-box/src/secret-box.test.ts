import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  configHeadersAad,
  credentialsAad,
  ENVELOPE_VERSION,
  IV_BYTES,
  openSecret,
  parseMasterKey,
  SecretBoxError,
  sealSecret,
  TAG_BYTES,
  webhookHeadersAad,
} from './secret-box.js';

const KEY = Buffer.alloc(32, 7);
const OTHER_KEY = Buffer.alloc(32, 8);
const AAD = 'integration:3f0c2a52-8a4b-4f7e-9b0c-1d2e3f405162';
const SECRET = 'sk-live-0123456789abcdefghij';

function failure(fn: () => unknown): SecretBoxError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(SecretBoxError);
    return err as SecretBoxError;
  }
  throw new Error('expected a SecretBoxError');
}

function flipped(envelope: Buffer, index: number): Buffer {
  const copy = Buffer.from(envelope);
  copy[index] = (copy[index] ?? 0) ^ 0x01;
  return copy;
}

describe('sealSecret / openSecret', () => {
  it('round-trips strings and buffers, including an empty plaintext', () => {
    expect(openSecret(KEY, sealSecret(KEY, SECRET, AAD), AAD).toString('utf8')).toBe(SECRET);
    const bytes = randomBytes(300);
    expect(openSecret(KEY, sealSecret(KEY, bytes, AAD), AAD).equals(bytes)).toBe(true);
    expect(openSecret(KEY, sealSecret(KEY, '', AAD), AAD).length).toBe(0);
    const unicode = '{"api_key":"clé-🔑"}';
    expect(openSecret(KEY, sealSecret(KEY, unicode, AAD), AAD).toString('utf8')).toBe(unicode);
  });

  it('lays the envelope out as version, 12-byte IV, ciphertext, 16-byte tag, with a fresh IV each time', () => {
    const a = sealSecret(KEY, SECRET, AAD);
    const b = sealSecret(KEY, SECRET, AAD);
    expect(a[0]).toBe(ENVELOPE_VERSION);
    expect(ENVELOPE_VERSION).toBe(1);
    expect(a.length).toBe(1 + IV_BYTES + Buffer.byteLength(SECRET) + TAG_BYTES);
    expect(a.subarray(1, 1 + IV_BYTES).equals(b.subarray(1, 1 + IV_BYTES))).toBe(false);
    expect(a.includes(Buffer.from(SECRET))).toBe(false);
  });

  it('opens an envelope built by hand from the documented layout (what a gateway relies on)', () => {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', KEY, iv);
    cipher.setAAD(Buffer.from(AAD, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(SECRET, 'utf8'), cipher.final()]);
    const envelope = Buffer.concat([Buffer.of(1), iv, ciphertext, cipher.getAuthTag()]);
    expect(openSecret(KEY, envelope, AAD).toString('utf8')).toBe(SECRET);
  });

  it('refuses a tampered envelope in every region', () => {
    const envelope = sealSecret(KEY, SECRET, AAD);
    const regions = {
      iv: [1, IV_BYTES],
      ciphertext: [1 + IV_BYTES, 1 + IV_BYTES + Buffer.byteLength(SECRET) - 1],
      tag: [envelope.length - TAG_BYTES, envelope.length - 1],
    };
    for (const [region, indexes] of Object.entries(regions)) {
      for (const index of indexes) {
        const error = failure(() => openSecret(KEY, flipped(envelope, index), AAD));
        expect(error.reason, `${region} byte ${index}`).toBe('authentication_failed');
      }
    }
    expect(failure(() => openSecret(KEY, envelope.subarray(0, envelope.length - 1), AAD)).reason).toBe(
      'authentication_failed',
    );
    expect(failure(() => openSecret(KEY, Buffer.concat([envelope, Buffer.of(0)]), AAD)).reason).toBe(
      'authentication_failed',
    );
  });

  it('checks the version byte before anything else', () => {
    const envelope = sealSecret(KEY, SECRET, AAD);
    for (const version of [0, 2, 255]) {
      const changed = Buffer.from(envelope);
      changed[0] = version;
      const error = failure(() => openSecret(KEY, changed, AAD));
      expect(error.reason).toBe('unsupported_version');
      expect(error.message).toContain(String(version));
    }
  });

  it('refuses envelopes too short to hold a header and a tag', () => {
    for (const length of [0, 1, 1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES - 1]) {
      expect(failure(() => openSecret(KEY, Buffer.alloc(length, 1), AAD)).reason).toBe('bad_envelope');
    }
  });

  it('binds the envelope to its owner: another aad does not open it', () => {
    const envelope = sealSecret(KEY, SECRET, AAD);
    for (const aad of [
      'integration:3f0c2a52-8a4b-4f7e-9b0c-1d2e3f405163',
      'provider:3f0c2a52-8a4b-4f7e-9b0c-1d2e3f405162',
      `${AAD} `,
    ]) {
      expect(failure(() => openSecret(KEY, envelope, aad)).reason).toBe('authentication_failed');
    }
  });

  it('refuses a wrong key without saying which part was wrong', () => {
    const envelope = sealSecret(KEY, SECRET, AAD);
    const error = failure(() => openSecret(OTHER_KEY, envelope, AAD));
    expect(error.reason).toBe('authentication_failed');
    expect(error.message).toBe('envelope does not open: wrong key, wrong owner or tampered');
  });

  it('refuses keys that are not 32 bytes and an empty or oversized aad', () => {
    for (const key of [Buffer.alloc(16), Buffer.alloc(31), Buffer.alloc(33)]) {
      expect(failure(() => sealSecret(key, SECRET, AAD)).reason).toBe('bad_key');
      expect(failure(() => openSecret(key, sealSecret(KEY, SECRET, AAD), AAD)).reason).toBe('bad_key');
    }
    expect(failure(() => sealSecret(KEY, SECRET, '')).reason).toBe('bad_aad');
    expect(failure(() => sealSecret(KEY, SECRET, 'x'.repeat(1025))).reason).toBe('bad_aad');
    expect(failure(() => openSecret(KEY, sealSecret(KEY, SECRET, AAD), '')).reason).toBe('bad_aad');
  });

  it('never puts the key or the plaintext in an error message', () => {
    const envelope = sealSecret(KEY, SECRET, AAD);
    const messages = [
      failure(() => openSecret(OTHER_KEY, envelope, AAD)).message,
      failure(() => openSecret(KEY, flipped(envelope, 20), AAD)).message,
      failure(() => sealSecret(Buffer.alloc(5, 0x41), SECRET, AAD)).message,
      failure(() => parseMasterKey(`${KEY.toString('base64')}AAAA`)).message,
    ];
    for (const message of messages) {
      expect(message).not.toContain(SECRET);
      expect(message).not.toContain(KEY.toString('base64'));
      expect(message).not.toContain(KEY.toString('hex'));
      expect(message).not.toContain('AAAAA');
    }
  });
});

describe('parseMasterKey', () => {
  it('accepts base64 of exactly 32 bytes, with or without padding and surrounding whitespace', () => {
    const text = KEY.toString('base64');
    expect(parseMasterKey(text).equals(KEY)).toBe(true);
    expect(parseMasterKey(text.replace(/=+$/, '')).equals(KEY)).toBe(true);
    expect(parseMasterKey(` ${text}\n`).equals(KEY)).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['too short', Buffer.alloc(16).toString('base64')],
    ['too long', Buffer.alloc(33).toString('base64')],
    ['not base64', '!'.repeat(44)],
    ['hex', Buffer.alloc(32, 7).toString('hex')],
    ['inner whitespace', `${KEY.toString('base64').slice(0, 20)} ${KEY.toString('base64').slice(20)}`],
  ])('refuses %s', (_name, text) => {
    expect(failure(() => parseMasterKey(text)).reason).toBe('bad_key');
  });
});

describe('credentialsAad', () => {
  it('names the owning entity kind and its lower-case id', () => {
    expect(credentialsAad('integration', 'ABC-1')).toBe('integration:abc-1');
    expect(credentialsAad('provider', 'abc-1')).toBe('provider:abc-1');
  });
});

describe('webhookHeadersAad', () => {
  it('binds to the lower-case guardrail id, apart from every credential owner of the same id', () => {
    expect(webhookHeadersAad('ABC-1')).toBe('guardrail:abc-1');
    const envelope = sealSecret(KEY, SECRET, webhookHeadersAad('abc-1'));
    expect(failure(() => openSecret(KEY, envelope, credentialsAad('integration', 'abc-1'))).reason).toBe(
      'authentication_failed',
    );
  });
});

describe('configHeadersAad', () => {
  it('binds to the lower-case config id and its version, apart from a guardrail of the same id', () => {
    expect(configHeadersAad('ABC-1', 3)).toBe('config:abc-1:3');
    const envelope = sealSecret(KEY, SECRET, configHeadersAad('abc-1', 3));
    for (const aad of [configHeadersAad('abc-1', 4), webhookHeadersAad('abc-1')]) {
      expect(failure(() => openSecret(KEY, envelope, aad)).reason).toBe('authentication_failed');
    }
  });
});
