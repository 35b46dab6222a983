import { describe, expect, it } from 'vitest';
import { ibanLength, ibanValid, luhnValid } from './checksums.js';

describe('luhnValid', () => {
  it.each([
    '4111111111111111',
    '4242424242424242',
    '5555555555554444',
    '378282246310005',
    '6011111111111117',
    '3056930009020004',
    '4222222222222',
    '79927398713',
  ])('accepts %s', (digits) => {
    expect(luhnValid(digits)).toBe(true);
  });

  it.each([
    '4111111111111112',
    '4111111111111121',
    '378282246310006',
    '79927398710',
    '',
    '4111 1111 1111 1111',
    '41111111111111x1',
  ])('refuses %j', (digits) => {
    expect(luhnValid(digits)).toBe(false);
  });

  it('doubles every second digit from the right, whatever the length', () => {
    // 18: 8 stays, 1 doubled = 2, sum 10.
    expect(luhnValid('18')).toBe(true);
    expect(luhnValid('81')).toBe(false);
    // 59: 9 stays, 5 doubled = 10 -> 1, sum 10.
    expect(luhnValid('59')).toBe(true);
  });
});

describe('ibanValid', () => {
  it.each([
    'DE89370400440532013000',
    'GB82WEST12345698765432',
    'FR1420041010050500013M02606',
    'NL91ABNA0417164300',
    'NO9386011117947',
    'BE68539007547034',
    'CH9300762011623852957',
    'MT84MALT011000012345MTLCAST001S',
  ])('accepts %s', (iban) => {
    expect(ibanValid(iban)).toBe(true);
  });

  it.each([
    ['a wrong check digit', 'DE88370400440532013000'],
    ['a changed account digit', 'DE89370400440532013001'],
    ['two swapped digits', 'DE89370400440532010300'],
    ['one character too many', 'DE893704004405320130000'],
    ['one character too few', 'DE8937040044053201300'],
    ['an unknown country', 'XX89370400440532013000'],
    ['lower case (callers upper-case first)', 'de89370400440532013000'],
    ['spaces (callers remove them first)', 'DE89 3704 0044 0532 0130 00'],
    ['letters for check digits', 'DEAB370400440532013000'],
  ])('refuses %s', (_why, iban) => {
    expect(ibanValid(iban)).toBe(false);
  });

  it('knows the length of each registry country', () => {
    expect(ibanLength('DE')).toBe(22);
    expect(ibanLength('NO')).toBe(15);
    expect(ibanLength('LC')).toBe(32);
    expect(ibanLength('US')).toBeUndefined();
  });
});
