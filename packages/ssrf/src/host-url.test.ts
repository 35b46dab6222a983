import { describe, expect, it } from 'vitest';
import { isSsrfError } from './errors.js';
import { MAX_CUSTOM_HOST_LENGTH, parseCustomHost } from './host-url.js';

function rejection(
  raw: string,
  param?: string,
): { code: string | null; param: string | null; message: string } {
  try {
    parseCustomHost(raw, param === undefined ? {} : { param });
  } catch (err) {
    if (!isSsrfError(err, 'custom_host_blocked')) throw err;
    return { code: err.code, param: err.param, message: err.message };
  }
  throw new Error(`accepted ${JSON.stringify(raw)}`);
}

describe('parseCustomHost normalises', () => {
  it.each([
    ['https://api.example.com/v1', 'https://api.example.com/v1'],
    ['https://API.Example.COM/V1/', 'https://api.example.com/V1/'],
    ['HTTPS://api.example.com', 'https://api.example.com/'],
    ['https://api.example.com./v1', 'https://api.example.com/v1'],
    ['http://localhost.:8080', 'http://localhost:8080/'],
    ['http://LOCALHOST.', 'http://localhost/'],
    ['https://api.example.com:443/v1', 'https://api.example.com/v1'],
    ['http://api.example.com:8080/base/path', 'http://api.example.com:8080/base/path'],
    ['http://2130706433', 'http://127.0.0.1/'],
    ['http://0x7f000001', 'http://127.0.0.1/'],
    ['http://0x7f.1', 'http://127.0.0.1/'],
    ['http://0177.0.0.1', 'http://127.0.0.1/'],
    ['http://017700000001', 'http://127.0.0.1/'],
    ['http://127.1', 'http://127.0.0.1/'],
    ['http://127.0.0.1.', 'http://127.0.0.1/'],
    ['http://0', 'http://0.0.0.0/'],
    ['http://[::ffff:127.0.0.1]', 'http://[::ffff:7f00:1]/'],
    ['http://[0:0:0:0:0:ffff:169.254.169.254]', 'http://[::ffff:a9fe:a9fe]/'],
    ['http://[::127.0.0.1]', 'http://[::7f00:1]/'],
    ['https://xn--bcher-kva.example/v1', 'https://xn--bcher-kva.example/v1'],
    ['http://my_service:8000/v1', 'http://my_service:8000/v1'],
  ])('%s -> %s', (raw, href) => {
    expect(parseCustomHost(raw).href).toBe(href);
  });

  it('keeps the base path for joining', () => {
    const url = parseCustomHost('https://llm.internal.example.com/openai/deployments/v1');
    expect(url.pathname).toBe('/openai/deployments/v1');
    expect(url.hostname).toBe('llm.internal.example.com');
  });
});

describe('parseCustomHost rejects', () => {
  it.each([
    ['', 'is empty'],
    ['http://', 'has no host'],
    ['https://', 'has no host'],
    ['http:///path', 'has no host'],
    ['http://:80', 'is not a valid URL'],
    ['example.com', 'must be an http:// or https:// URL'],
    ['//example.com', 'must be an http:// or https:// URL'],
    ['file:///etc/passwd', 'not file:'],
    ['gopher://x', 'not gopher:'],
    ['ftp://x', 'not ftp:'],
    ['ws://x', 'not ws:'],
    ['data:text/plain,hi', 'not data:'],
    ['javascript:alert(1)', 'not javascript:'],
    ['http:example.com', 'must start with http://'],
    ['http:/example.com', 'must start with http://'],
    ['http://user:pass@example.com', 'credentials'],
    ['http://user@example.com', 'credentials'],
    ['http://@example.com', 'credentials'],
    ['http://example.com@127.0.0.1', 'credentials'],
    ['http://a@127.0.0.1:80@evil.com', 'credentials'],
    ['http://1.1.1.1%2f@evil/', 'credentials'],
    ['http://127.0.0.1#@example.com', 'fragment'],
    ['http://example.com/#', 'fragment'],
    ['http://example.com/v1?api-version=1', 'query string'],
    ['http://example.com\\@127.0.0.1', 'backslash'],
    ['http:\\\\127.0.0.1', 'backslash'],
    ['http://127.0.0.%31', 'percent-encode'],
    ['http://%6c%6f%63%61%6c%68%6f%73%74', 'percent-encode'],
    ['http://ex%41mple.com', 'percent-encode'],
    ['http://[fe80::1%25eth0]', 'percent-encode'],
    ['http://exa mple.com', 'printable ASCII'],
    [' http://example.com', 'printable ASCII'],
    ['http://example.com\t', 'printable ASCII'],
    ['http://example.com/\r\nHost: evil', 'printable ASCII'],
    ['http://example.com\u0000', 'printable ASCII'],
    ['http://example.com\u007f', 'printable ASCII'],
    ['http://127。0。0。1', 'printable ASCII'],
    ['http://exämple.com', 'printable ASCII'],
    ['http://example.com:0', 'port 0'],
    ['http://example.com:65536', 'is not a valid URL'],
    ['http://1.2.3.999', 'is not a valid URL'],
    ['http://localhost..', 'valid host name'],
    ['http://a..b.example', 'valid host name'],
    ['http://.example.com', 'valid host name'],
    ['http://-bad.example.com', 'valid host name'],
    ['http://bad-.example.com', 'valid host name'],
    ['http://a!b.example.com', 'valid host name'],
    [`http://${'a'.repeat(64)}.example.com`, 'valid host name'],
    [`http://${Array.from({ length: 64 }, () => 'abc').join('.')}`, 'valid host name'],
    [`https://example.com/${'a'.repeat(MAX_CUSTOM_HOST_LENGTH)}`, 'longer than 2048'],
  ])('%j (%s)', (raw, reason) => {
    const error = rejection(raw);
    expect(error.code).toBe('custom_host_blocked');
    expect(error.param).toBe('x-service-custom-host');
    expect(error.message).toContain(reason);
  });

  it('reports the field it was given as param', () => {
    expect(rejection('ftp://x', 'custom_host').param).toBe('custom_host');
  });
});
