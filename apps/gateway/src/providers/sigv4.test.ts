import { DEFAULT_AWS_CREDENTIALS, verifySigV4 } from '@aigw/mock-provider';
import { describe, expect, it } from 'vitest';
import { type SigV4Input, sha256Hex, signingKey, signSigV4 } from './sigv4.js';

// AWS's published SigV4 test suite (aws-sig-v4-test-suite): fixed key, scope and time.
const SUITE = {
  region: 'us-east-1',
  service: 'service',
  credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
  date: new Date('2015-08-30T12:36:00Z'),
};
const EMPTY_HASH = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const SCOPE = 'AKIDEXAMPLE/20150830/us-east-1/service/aws4_request';

function suite(input: Pick<SigV4Input, 'method' | 'path' | 'query'> & Partial<SigV4Input>) {
  return signSigV4({ headers: { Host: 'example.amazonaws.com' }, ...SUITE, ...input });
}

describe('signSigV4 against the AWS test suite', () => {
  it('get-vanilla: canonical request, string to sign and authorization', async () => {
    const signed = await suite({ method: 'GET', path: '/', query: '' });
    expect(signed.canonicalRequest).toBe(
      `GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n${EMPTY_HASH}`,
    );
    expect(signed.stringToSign).toBe(
      'AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\nbb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63',
    );
    expect(signed.headers).toEqual({
      'x-amz-date': '20150830T123600Z',
      authorization: `AWS4-HMAC-SHA256 Credential=${SCOPE}, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31`,
    });
  });

  it('post-vanilla', async () => {
    expect((await suite({ method: 'POST', path: '/', query: '' })).signature).toBe(
      '5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b',
    );
  });

  it('get-vanilla-query-order-key-case: parameters sorted by name', async () => {
    const signed = await suite({ method: 'GET', path: '/', query: '?Param2=value2&Param1=value1' });
    expect(signed.canonicalRequest.split('\n')[2]).toBe('Param1=value1&Param2=value2');
    expect(signed.signature).toBe('b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500');
  });

  it('post-x-www-form-urlencoded: a signed content type and a hashed body', async () => {
    const signed = await suite({
      method: 'POST',
      path: '/',
      query: '',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Host: 'example.amazonaws.com' },
      body: 'Param1=value1',
    });
    expect(signed.canonicalRequest).toBe(
      'POST\n/\n\ncontent-type:application/x-www-form-urlencoded\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\ncontent-type;host;x-amz-date\n9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e',
    );
    expect(signed.stringToSign.split('\n')[3]).toBe(
      '42a5e5bb34198acb3e84da4f085bb7927f2bc277ca766e6d19c73c2154021281',
    );
    expect(signed.headers.authorization).toBe(
      `AWS4-HMAC-SHA256 Credential=${SCOPE}, SignedHeaders=content-type;host;x-amz-date, Signature=ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a`,
    );
  });

  it('get-utf8: a non-ASCII path segment is encoded once', async () => {
    const signed = await suite({ method: 'GET', path: '/ሴ', query: '' });
    expect(signed.canonicalRequest.split('\n')[1]).toBe('/%E1%88%B4');
    expect(signed.signature).toBe('8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85');
  });

  it('derives the documented signing key chain (date, region, service, aws4_request)', async () => {
    const key = await signingKey(SUITE.credentials.secretAccessKey, '20150830', 'us-east-1', 'service');
    expect(Buffer.from(key).toString('hex')).toBe(
      '938127b5336810ddb6a5d6af445fcac9e371f9ed418ed386b022aed82901be75',
    );
  });
});

describe('canonical forms', () => {
  const line = async (path: string, query: string, index: 1 | 2) =>
    (await suite({ method: 'GET', path, query })).canonicalRequest.split('\n')[index];

  it('escapes an already encoded path once more, segment by segment, and normalizes it', async () => {
    expect(await line('/model/anthropic.claude-v2%3A1/converse', '', 1)).toBe(
      '/model/anthropic.claude-v2%253A1/converse',
    );
    expect(await line('//example//', '', 1)).toBe('/example/');
    expect(await line('/example1/example2/../..', '', 1)).toBe('/');
    expect(await line('/./a/./b', '', 1)).toBe('/a/b');
  });

  it('re-encodes query names and values with RFC 3986 and sorts by name, then value', async () => {
    expect(await line('/', 'b=2&a=z&a=y&c', 2)).toBe('a=y&a=z&b=2&c=');
    expect(await line('/', "?q=a b!'()*&~-._=ok", 2)).toBe('q=a%20b%21%27%28%29%2A&~-._=ok');
    expect(await line('/', 'x=%41%2f', 2)).toBe('x=A%2F');
  });

  it('trims header values and collapses inner whitespace; repeated values join with commas', async () => {
    const signed = await signSigV4({
      ...SUITE,
      method: 'GET',
      path: '/',
      query: '',
      headers: {
        host: 'example.amazonaws.com',
        'My-Header1': '  value1  a   b ',
        'my-header2': ['x', ' y '],
      },
    });
    expect(signed.canonicalRequest).toContain('my-header1:value1 a b\nmy-header2:x,y\n');
    expect(signed.signedHeaders).toBe('host;my-header1;my-header2;x-amz-date');
  });

  it('adds and signs the session token and the body hash when asked', async () => {
    const signed = await signSigV4({
      ...SUITE,
      credentials: { ...SUITE.credentials, sessionToken: 'session-token' },
      method: 'POST',
      path: '/',
      query: '',
      headers: { host: 'example.amazonaws.com' },
      body: '{}',
      contentSha256Header: true,
    });
    expect(signed.headers['x-amz-security-token']).toBe('session-token');
    expect(signed.headers['x-amz-content-sha256']).toBe(sha256Hex('{}'));
    expect(signed.signedHeaders).toBe('host;x-amz-content-sha256;x-amz-date;x-amz-security-token');
  });

  it('refuses to sign without a host header', async () => {
    await expect(signSigV4({ ...SUITE, method: 'GET', path: '/', query: '', headers: {} })).rejects.toThrow(
      /host/,
    );
  });
});

describe("signSigV4 against the mock provider's Bedrock verifier", () => {
  const url = new URL('http://127.0.0.1:4010/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse?x=1');
  const body = Buffer.from(JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'hi' }] }] }));
  const now = new Date();

  function sign(credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string }) {
    return signSigV4({
      method: 'POST',
      path: url.pathname,
      query: url.search,
      headers: { host: url.host, 'content-type': 'application/json' },
      body,
      region: 'us-west-2',
      service: 'bedrock',
      credentials,
      date: now,
      contentSha256Header: true,
    });
  }

  function verify(headers: Record<string, string>, sent: Buffer, credentials = DEFAULT_AWS_CREDENTIALS) {
    return verifySigV4(
      {
        method: 'POST',
        url: `${url.pathname}${url.search}`,
        headers: { host: url.host, 'content-type': 'application/json', ...headers },
        body: sent,
      },
      credentials,
      { now },
    );
  }

  it('is accepted, with the region of the scope', async () => {
    const result = verify((await sign(DEFAULT_AWS_CREDENTIALS)).headers, body);
    expect(result).toEqual({
      ok: true,
      accessKeyId: DEFAULT_AWS_CREDENTIALS.accessKeyId,
      region: 'us-west-2',
      service: 'bedrock',
    });
  });

  it('is accepted with a session token when the verifier expects that token', async () => {
    const credentials = { ...DEFAULT_AWS_CREDENTIALS, sessionToken: 'FwoGZXIvYXdzEXAMPLE' };
    expect(verify((await sign(credentials)).headers, body, credentials).ok).toBe(true);
  });

  function rejection(result: ReturnType<typeof verify>): string | undefined {
    return result.ok ? undefined : result.error.headers?.['x-amzn-errortype']?.split(':')[0];
  }

  it('is rejected when the body, the signature or the secret differ', async () => {
    const { headers } = await sign(DEFAULT_AWS_CREDENTIALS);
    const otherBody = Buffer.from('{"messages":[]}');
    // The declared body hash no longer matches what arrived.
    expect(rejection(verify(headers, otherBody))).toBe('InvalidSignatureException');
    // A matching hash header, but the signature covered the old one.
    const rehashed = { ...headers, 'x-amz-content-sha256': sha256Hex(otherBody) };
    expect(rejection(verify(rehashed, otherBody))).toBe('InvalidSignatureException');
    const flipped = headers.authorization!.replace(
      /Signature=(.)/,
      (_, c: string) => `Signature=${c === '0' ? '1' : '0'}`,
    );
    expect(rejection(verify({ ...headers, authorization: flipped }, body))).toBe('InvalidSignatureException');
    const wrongSecret = await sign({ ...DEFAULT_AWS_CREDENTIALS, secretAccessKey: 'not-the-secret' });
    expect(rejection(verify(wrongSecret.headers, body))).toBe('InvalidSignatureException');
  });
});
