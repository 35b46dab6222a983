// PII detection for the `pii` check: emails, phone numbers, card numbers (Luhn), IBANs (mod 97),
// IPv4/IPv6 addresses. Every scan is linear: patterns have no ambiguous repetition, and candidates
// are validated in code rather than by backtracking.
import { isIPv6 } from 'node:net';
import type { PII_CATEGORIES } from '@aigw/config-schema';
import { ibanLength, ibanValid, luhnValid } from './checksums.js';

export type PiiCategory = (typeof PII_CATEGORIES)[number];

const WORD = /[\p{L}\p{N}_]/u;
const isWordChar = (char: string | undefined): boolean => char !== undefined && WORD.test(char);
const isDigit = (char: string | undefined): boolean => char !== undefined && char >= '0' && char <= '9';

const LOCAL_CHAR = /[A-Za-z0-9._%+-]/;
const DOMAIN_CHAR = /[A-Za-z0-9.-]/;

/** Emails: from each `@`, a local part to the left and a dotted domain with a letter TLD to the right. */
export function countEmails(text: string): number {
  let count = 0;
  for (let at = text.indexOf('@'); at !== -1; at = text.indexOf('@', at + 1)) {
    let start = at;
    while (start > 0 && at - start < 64 && LOCAL_CHAR.test(text[start - 1]!)) start--;
    let end = at + 1;
    while (end < text.length && end - at <= 253 && DOMAIN_CHAR.test(text[end]!)) end++;
    const local = text.slice(start, at).replace(/^\.+/, '');
    const domain = text.slice(at + 1, end).replace(/[.-]+$/, '');
    if (local.length > 0 && /^[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$/.test(domain)) count++;
  }
  return count;
}

const PHONE_RUN = /\+?\(?\d+\)?(?:[ .-]{1,2}\(?\d+\)?)*/g;

/**
 * Phone numbers: `+` and 8-15 digits (E.164, separators allowed), or a national number of 10-11
 * digits written in groups (`(555) 123-4567`, `1-800-555-1234`, `020 7946 0958`). Digits without
 * separators are a plain integer, not a phone number; dotted quads are IP addresses.
 */
export function countPhones(text: string): number {
  let count = 0;
  for (const match of text.matchAll(PHONE_RUN)) {
    const run = match[0];
    const before = text[match.index - 1];
    if (isWordChar(before) || before === '.' || isWordChar(text[match.index + run.length])) continue;
    const groups = run.match(/\d+/g) ?? [];
    const digits = groups.join('');
    if (run.startsWith('+')) {
      if (digits.length >= 8 && digits.length <= 15 && digits[0] !== '0') count++;
      continue;
    }
    if (groups.length < 2 || digits.length < 10 || digits.length > 11) continue;
    if (groups.slice(1).some((g) => g.length < 2 || g.length > 6) || groups[0]!.length > 6) continue;
    const separators = run.replace(/[\d()]/g, '');
    if (/^\.+$/.test(separators) && (groups.length < 3 || groups.every((g) => g.length <= 3))) continue;
    count++;
  }
  return count;
}

const DIGIT_RUN = /\d+(?:[ -]\d+)*/g;
const isCardGroup = (group: string): boolean => group.length >= 3 && group.length <= 6;

/**
 * Card numbers: 13-19 digits, contiguous or in groups of 3-6 split by one kind of separator (space
 * or dash), passing Luhn. All zeros passes Luhn but is no card.
 */
export function countCards(text: string): number {
  let count = 0;
  for (const match of text.matchAll(DIGIT_RUN)) {
    if (isWordChar(text[match.index - 1]) || isWordChar(text[match.index + match[0].length])) continue;
    const groups = match[0].split(/[ -]/);
    const separators = match[0].replace(/\d/g, '');
    for (let i = 0; i < groups.length; i++) {
      let digits = '';
      for (let j = i; j < groups.length; j++) {
        const group = groups[j]!;
        if (
          j > i &&
          !(isCardGroup(group) && isCardGroup(groups[i]!) && separators[j - 1] === separators[i])
        ) {
          break;
        }
        digits += group;
        if (digits.length > 19) break;
        if (digits.length >= 13 && luhnValid(digits) && /[1-9]/.test(digits)) {
          count++;
          i = j;
          break;
        }
      }
    }
  }
  return count;
}

const IBAN_CANDIDATE = /[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9]){11,30}/g;

/** IBANs: a known country code, its exact length (single spaces allowed), and valid check digits. */
export function countIbans(text: string): number {
  let count = 0;
  const re = new RegExp(IBAN_CANDIDATE);
  for (let match = re.exec(text); match !== null; match = re.exec(text)) {
    re.lastIndex = match.index + 1;
    if (/[A-Za-z0-9]/.test(text[match.index - 1] ?? '')) continue;
    const length = ibanLength(match[0].slice(0, 2).toUpperCase());
    if (length === undefined) continue;
    let iban = '';
    let end = match.index;
    while (iban.length < length && end < text.length) {
      const char = text[end]!;
      if (/[A-Za-z0-9]/.test(char)) iban += char;
      else if (char !== ' ' || text[end + 1] === ' ') break;
      end++;
    }
    if (iban.length !== length || /[A-Za-z0-9]/.test(text[end] ?? '')) continue;
    if (ibanValid(iban.toUpperCase())) {
      count++;
      re.lastIndex = end;
    }
  }
  return count;
}

const IPV4 = /\d{1,3}(?:\.\d{1,3}){3}/g;
const HEX_RUN = /[0-9A-Fa-f:.]+/g;

/** IPv4 dotted quads (octets up to 255) and IPv6 addresses (validated by node:net). */
export function countIpAddresses(text: string): number {
  let count = 0;
  const re = new RegExp(IPV4);
  for (let match = re.exec(text); match !== null; match = re.exec(text)) {
    const end = match.index + match[0].length;
    const before = text[match.index - 1];
    const after = text[end];
    const free =
      !isWordChar(before) &&
      before !== '.' &&
      !isWordChar(after) &&
      !(after === '.' && isDigit(text[end + 1]));
    if (free && match[0].split('.').every((octet) => Number(octet) <= 255)) {
      count++;
    } else {
      re.lastIndex = match.index + 1;
    }
  }
  for (const match of text.matchAll(HEX_RUN)) {
    let run = match[0].replace(/\.+$/, '');
    if (run.endsWith(':') && !run.endsWith('::')) run = run.slice(0, -1);
    if (run.length > 45 || !/[0-9A-Fa-f]/.test(run) || run.split(':').length < 3) continue;
    if (isWordChar(text[match.index - 1]) || isWordChar(text[match.index + match[0].length])) continue;
    if (isIPv6(run)) count++;
  }
  return count;
}

const DETECTORS: Readonly<Record<PiiCategory, (text: string) => number>> = {
  email: countEmails,
  phone: countPhones,
  credit_card: countCards,
  iban: countIbans,
  ip_address: countIpAddresses,
};

/** How many of each requested category the text holds (categories with none are left out). */
export function detectPii(
  text: string,
  categories: readonly PiiCategory[],
): Partial<Record<PiiCategory, number>> {
  const found: Partial<Record<PiiCategory, number>> = {};
  for (const category of categories) {
    const count = DETECTORS[category](text);
    if (count > 0) found[category] = count;
  }
  return found;
}
