import { PII_CATEGORIES } from '@aigw/config-schema';
import { describe, expect, it } from 'vitest';
import { countCards, countEmails, countIbans, countIpAddresses, countPhones, detectPii } from './pii.js';

describe('countEmails', () => {
  it.each([
    'write to jane.doe@example.com today',
    'Jane <jane+tag@mail.example.co.uk>',
    'user_1@sub-domain.example.org.',
    'ASCII%odd-chars@EXAMPLE.COM',
  ])('finds one in %j', (text) => {
    expect(countEmails(text)).toBe(1);
  });

  it.each([
    'the @ sign alone',
    'follow @example on social media',
    'user@localhost',
    'user@example.c',
    'user@.com',
    'user@123.456',
    '@example.com',
  ])('finds none in %j', (text) => {
    expect(countEmails(text)).toBe(0);
  });

  it('counts each address', () => {
    expect(countEmails('a@example.com, b@example.net; c@example.org')).toBe(3);
  });
});

describe('countPhones', () => {
  it.each([
    '+14155552671',
    'call +44 20 7946 0958 now',
    '+1 (555) 123-4567',
    '+33 1 23 45 67 89',
    '(555) 123-4567',
    '555-123-4567',
    '555.123.4567',
    '1-800-555-1234',
    '020 7946 0958',
    '07911 123456',
  ])('finds one in %j', (text) => {
    expect(countPhones(text)).toBe(1);
  });

  it.each([
    ['a plain integer', 'order 5551234567 shipped'],
    ['a long plain integer', 'id 123456789012345'],
    ['a date', 'on 2024-01-15 we met'],
    ['a European date', 'on 15.01.2024 we met'],
    ['an IP address', 'host 100.100.100.10'],
    ['a decimal number', 'pi is 3.14159265358979'],
    ['a card number', '4111 1111 1111 1111'],
    ['too few digits after +', '+123 4567'],
    ['a + and a leading zero', '+0 20 7946 0958'],
    ['a range', 'pages 100-200'],
    ['digits inside a word', 'ref AB555-123-4567'],
  ])('finds none in %s', (_why, text) => {
    expect(countPhones(text)).toBe(0);
  });
});

describe('countCards', () => {
  it.each([
    '4111111111111111',
    'card 4111 1111 1111 1111 exp 12/29',
    '4111-1111-1111-1111',
    'amex 3782 822463 10005.',
    '6011 1111 1111 1117',
    'visa-13 4222222222222',
    'order 12 4111 1111 1111 1111',
  ])('finds one in %j', (text) => {
    expect(countCards(text)).toBe(1);
  });

  it.each([
    ['a Luhn-invalid number', '4111 1111 1111 1112'],
    ['too few digits', '4111 1111 111'],
    ['too many digits in one run', '41111111111111111111'],
    ['mixed separators', '4111-1111 1111-1111'],
    ['groups too small', '41 11 11 11 11 11 11 11'],
    ['all zeros', '0000 0000 0000 0000'],
    ['digits glued to letters', 'x4111111111111111'],
    ['a phone number', '+1 (555) 123-4567'],
  ])('finds none in %s', (_why, text) => {
    expect(countCards(text)).toBe(0);
  });

  it('counts two cards in one line', () => {
    expect(countCards('4111111111111111 and 5555-5555-5555-4444')).toBe(2);
  });
});

describe('countIbans', () => {
  it.each([
    'DE89370400440532013000',
    'pay to DE89 3704 0044 0532 0130 00 please',
    'iban: GB82 WEST 1234 5698 7654 32.',
    'lower case de89 3704 0044 0532 0130 00',
    'NO93 8601 1117 947',
    'FR14 2004 1010 0505 0001 3M02 606',
  ])('finds one in %j', (text) => {
    expect(countIbans(text)).toBe(1);
  });

  it.each([
    ['a wrong check digit', 'DE88 3704 0044 0532 0130 00'],
    ['a missing digit', 'DE89 3704 0044 0532 0130 0'],
    ['an extra digit glued on', 'DE893704004405320130001'],
    ['a letter glued on', 'DE89370400440532013000X'],
    ['letters glued before', 'XDE89370400440532013000'],
    ['a double space inside', 'DE89 3704  0044 0532 0130 00'],
    ['an unknown country', 'US89370400440532013000'],
  ])('finds none with %s', (_why, text) => {
    expect(countIbans(text)).toBe(0);
  });
});

describe('countIpAddresses', () => {
  it.each([
    '192.168.1.1',
    'server at 10.0.0.1.',
    'from 8.8.8.8:53',
    '::1',
    'fe80::1ff:fe23:4567:890a',
    'v6 2001:db8::8a2e:370:7334 works',
    '[2001:db8::1]:443',
    '2001:0db8:0000:0000:0000:ff00:0042:8329',
  ])('finds one in %j', (text) => {
    expect(countIpAddresses(text)).toBe(1);
  });

  it.each([
    ['an octet over 255', '256.1.1.1'],
    ['five parts', '1.2.3.4.5'],
    ['three parts', '1.2.3'],
    ['a time', 'at 12:30:45'],
    ['a MAC address', '00:1A:2B:3C:4D:5E'],
    ['C++ scope', 'std::vector<int>'],
    ['a double colon alone', 'a :: b'],
    ['digits glued on', 'v1.2.3.4a'],
  ])('finds none in %s', (_why, text) => {
    expect(countIpAddresses(text)).toBe(0);
  });
});

describe('detectPii', () => {
  const text = 'mail jane@example.com, call +14155552671, card 4111111111111111, ip 10.1.2.3';

  it('counts every category found', () => {
    expect(detectPii(text, PII_CATEGORIES)).toEqual({ email: 1, phone: 1, credit_card: 1, ip_address: 1 });
  });

  it('looks only at the categories asked for', () => {
    expect(detectPii(text, ['iban', 'email'])).toEqual({ email: 1 });
    expect(detectPii(text, ['iban'])).toEqual({});
  });

  it('finds nothing in ordinary prose with numbers', () => {
    const prose = 'In 2024 we shipped 1500 units across 12 countries, up 3.5% on 2023 (see page 42).';
    expect(detectPii(prose, PII_CATEGORIES)).toEqual({});
  });

  it('finishes on long adversarial input', () => {
    const adversarial = [
      '1-'.repeat(20_000),
      'a@'.repeat(20_000),
      'DE12'.repeat(10_000),
      'f:'.repeat(20_000),
    ];
    for (const input of adversarial) expect(detectPii(input, PII_CATEGORIES)).toBeTypeOf('object');
  });
});
