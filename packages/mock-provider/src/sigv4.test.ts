import { describe, expect, it } from 'vitest';
import { canonicalPath, canonicalQuery, signAwsRequest } from './sigv4.js';
import { verifySigV4 } from './sigv4-verify.js';

// Credentials and expected signatures of the AWS SigV4 test suite (get-vanilla, get-vanilla-query-order-key-case,
// post-vanilla): an independent check that the canonical request is built the way AWS builds it.
const SUITE = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const SUITE_DATE = new Date(Date.UTC(2015, 7, 30, 12, 36, 0));
const signatureOf = (headers: Record<string, string>) =>
  /Signature=([0-9a-f]+)$/.exec(headers.authorization ?? '')?.[1];

describe('signAwsRequest', () => {
  it('reproduces the AWS test-suite signatures', () => {
    const sign = (method: string, url: string) =>
      signatureOf(
        signAwsRequest({
          method,
          url,
          region: 'us-east-1',
          service: 'service',
          credentials: SUITE,
          date: SUITE_DATE,
        }),
      );
    expect(sign('GET', 'https://example.amazonaws.com/')).toBe(
      '5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31',
    );
    expect(sign('GET', 'https://example.amazonaws.com/?Param2=value2&Param1=value1')).toBe(
      'b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500',
    );
    expect(sign('POST', 'https://example.amazonaws.com/')).toBe(
      '5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b',
    );
  });

  it('adds host, date, session token and the optional payload hash, and signs them all', () => {
    const headers = signAwsRequest({
      method: 'POST',
      url: 'http://127.0.0.1:9/model/m/converse',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
      region: 'eu-west-1',
      credentials: { ...SUITE, sessionToken: 'token-1' },
      contentSha256Header: true,
      date: SUITE_DATE,
    });
    expect(headers).toMatchObject({
      host: '127.0.0.1:9',
      'x-amz-date': '20150830T123600Z',
      'x-amz-security-token': 'token-1',
      'x-amz-content-sha256': '44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a',
    });
    expect(headers.authorization).toContain('Credential=AKIDEXAMPLE/20150830/eu-west-1/bedrock/aws4_request');
    expect(headers.authorization).toContain(
      'SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token,',
    );
  });
});

describe('canonical forms', () => {
  it('escapes an already-encoded path once more, as every service but S3 expects', () => {
    expect(canonicalPath('/model/anthropic.claude-v2%3A1/invoke')).toBe(
      '/model/anthropic.claude-v2%253A1/invoke',
    );
    expect(canonicalPath('/a/./b/../c/')).toBe('/a/c/');
    expect(canonicalPath('')).toBe('/');
  });

  it('sorts and re-escapes query parameters', () => {
    expect(canonicalQuery("b=2&a=x y&a=1&c=it's")).toBe('a=1&a=x%20y&b=2&c=it%27s');
    expect(canonicalQuery('')).toBe('');
  });
});

describe('verifySigV4', () => {
  const creds = { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret-test' };
  const url = 'http://mock.local/model/amazon.titan%3A0/invoke?x=1';
  const body = Buffer.from('{"inputText":"hi"}');
  const now = new Date(Date.UTC(2025, 0, 2, 3, 4, 5));

  function signed(overrides: Partial<Parameters<typeof signAwsRequest>[0]> = {}) {
    const headers = signAwsRequest({
      method: 'POST',
      url,
      body,
      region: 'us-west-2',
      credentials: creds,
      date: now,
      ...overrides,
    });
    return { method: 'POST', url: '/model/amazon.titan%3A0/invoke?x=1', headers, body };
  }

  it('accepts a valid signature and reports the region of the scope', () => {
    expect(verifySigV4(signed(), creds, { now })).toEqual({
      ok: true,
      accessKeyId: 'AKIDTEST',
      region: 'us-west-2',
      service: 'bedrock',
    });
  });

  it('rejects a tampered body, a wrong secret and a wrong service with Bedrock errors', () => {
    const tampered = { ...signed(), body: Buffer.from('{"inputText":"bye"}') };
    const wrongSecret = signed({ credentials: { ...creds, secretAccessKey: 'nope' } });
    const wrongService = signed({ service: 's3' });
    for (const req of [tampered, wrongSecret, wrongService]) {
      const result = verifySigV4(req, creds, { now });
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.error.status).toBe(403);
        expect(result.error.headers?.['x-amzn-errortype']).toMatch(/^InvalidSignatureException:/);
      }
    }
  });

  it('rejects a missing header, an unknown key, a missing or unexpected session token', () => {
    const { authorization: _, ...unsigned } = signed().headers;
    const cases: Array<[ReturnType<typeof signed>, typeof creds & { sessionToken?: string }, string]> = [
      [{ ...signed(), headers: unsigned }, creds, 'MissingAuthenticationTokenException'],
      [signed({ credentials: { ...creds, accessKeyId: 'OTHER' } }), creds, 'UnrecognizedClientException'],
      [signed(), { ...creds, sessionToken: 't' }, 'UnrecognizedClientException'],
      [signed({ credentials: { ...creds, sessionToken: 't' } }), creds, 'UnrecognizedClientException'],
      [
        { ...signed(), headers: { ...signed().headers, authorization: 'Bearer x' } },
        creds,
        'IncompleteSignatureException',
      ],
    ];
    for (const [req, configured, type] of cases) {
      const result = verifySigV4(req, configured, { now });
      expect(result.ok ? 'ok' : result.error.headers?.['x-amzn-errortype']?.split(':')[0]).toBe(type);
    }
    const withToken = { ...creds, sessionToken: 'session-abc' };
    expect(verifySigV4(signed({ credentials: withToken }), withToken, { now }).ok).toBe(true);
  });

  it('rejects a signature older than five minutes and a payload hash that does not match the body', () => {
    const later = new Date(now.getTime() + 6 * 60_000);
    const expired = verifySigV4(signed(), creds, { now: later });
    expect(!expired.ok && (expired.error.body as { message: string }).message).toMatch(/^Signature expired/);
    const lying = signed({ contentSha256Header: true });
    const result = verifySigV4({ ...lying, body: Buffer.from('other') }, creds, { now });
    expect(!result.ok && (result.error.body as { message: string }).message).toMatch(/x-amz-content-sha256/);
  });
});
