import { describe, expect, it } from 'vitest';
import { isSsrfError } from './errors.js';
import { validateHostnameLabel } from './validate-label.js';

const HEADER = 'x-service-azure-resource-name';

describe('validateHostnameLabel', () => {
  it.each([
    ['my-resource', 'my-resource'],
    ['eastus2', 'eastus2'],
    ['us-central1', 'us-central1'],
    ['us-east-1', 'us-east-1'],
    ['my-project-123', 'my-project-123'],
    ['MyResource', 'myresource'],
    ['a', 'a'],
    ['0', '0'],
    ['a--b', 'a--b'],
    ['a'.repeat(63), 'a'.repeat(63)],
  ])('accepts %j as %j', (value, expected) => {
    expect(validateHostnameLabel(HEADER, value)).toBe(expected);
  });

  it.each([
    'a.b',
    'a/b',
    'a#b',
    'httpbin.org#',
    'a@b',
    'a%2eb',
    'a b',
    ' a',
    'a ',
    '-a',
    'a-',
    '-',
    'a'.repeat(64),
    '',
    'ａ',
    'ａｂｃ',
    'a\nb',
    'a\n',
    'a\r',
    'a\tb',
    '..',
    '.',
    'a:b',
    'a?b',
    'a\\b',
    'a_b',
    'a\u0000',
    'é',
    '\u212a',
    'a\u200bb',
    'xn--bcher-kva.example',
  ])('rejects %j with invalid_header naming the header', (value) => {
    let caught: unknown;
    try {
      validateHostnameLabel(HEADER, value);
    } catch (err) {
      caught = err;
    }
    expect(isSsrfError(caught, 'invalid_header')).toBe(true);
    expect(caught).toMatchObject({ param: HEADER, status: 400 });
  });
});
