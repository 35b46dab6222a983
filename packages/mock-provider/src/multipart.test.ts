import { describe, expect, it } from 'vitest';
import { headerParams, MultipartError, multipartBoundary, parseMultipart } from './multipart.js';

function body(boundary: string, parts: Array<{ headers: string[]; data: Buffer | string }>): Buffer {
  const chunks: Buffer[] = [Buffer.from('preamble is ignored\r\n')];
  for (const part of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n${part.headers.join('\r\n')}\r\n\r\n`));
    chunks.push(Buffer.isBuffer(part.data) ? part.data : Buffer.from(part.data));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

describe('multipart parsing', () => {
  it('reads the boundary, quoted or not, only for multipart/form-data', () => {
    expect(multipartBoundary('multipart/form-data; boundary=abc')).toBe('abc');
    expect(multipartBoundary('multipart/form-data; boundary="a b"')).toBe('a b');
    expect(multipartBoundary('application/json')).toBeUndefined();
    expect(multipartBoundary(undefined)).toBeUndefined();
  });

  it('parses fields and binary files, including bytes that look like CRLF and dashes', () => {
    const binary = Buffer.from([0, 13, 10, 45, 45, 255, 13, 10, 0]);
    const parsed = parseMultipart(
      body('XyZ', [
        { headers: ['Content-Disposition: form-data; name="purpose"'], data: 'batch' },
        {
          headers: [
            'Content-Disposition: form-data; name="file"; filename="in.bin"',
            'Content-Type: application/octet-stream',
          ],
          data: binary,
        },
      ]),
      'XyZ',
    );
    expect(parsed).toHaveLength(2);
    expect(parsed[0]).toMatchObject({ name: 'purpose' });
    expect(parsed[0]!.data.toString()).toBe('batch');
    expect(parsed[0]!.filename).toBeUndefined();
    expect(parsed[1]).toMatchObject({
      name: 'file',
      filename: 'in.bin',
      contentType: 'application/octet-stream',
    });
    expect(parsed[1]!.data.equals(binary)).toBe(true);
  });

  it('prefers the RFC 5987 filename* parameter', () => {
    expect(
      headerParams(`form-data; name="f"; filename="plain.txt"; filename*=UTF-8''na%C3%AFve.txt`).filename,
    ).toBe('naïve.txt');
  });

  it('rejects bodies that are not terminated or lack a disposition', () => {
    expect(() =>
      parseMultipart(Buffer.from('--b\r\nContent-Disposition: form-data; name="x"\r\n\r\nvalue'), 'b'),
    ).toThrow(MultipartError);
    expect(() =>
      parseMultipart(body('b', [{ headers: ['Content-Type: text/plain'], data: 'x' }]), 'b'),
    ).toThrow(/Content-Disposition/);
    expect(() => parseMultipart(Buffer.from('no delimiter'), 'b')).toThrow(MultipartError);
  });
});
