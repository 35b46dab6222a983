// Checksums that tell real card numbers and IBANs from random digit runs: Luhn and ISO 7064 mod 97-10.

/** Luhn (ISO/IEC 7812) over a string of digits. */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** IBAN lengths by country (ISO 13616 registry), as `CCnn`; a country not listed has no IBAN here. */
const IBAN_LENGTHS: ReadonlyMap<string, number> = new Map(
  [
    'AD24 AE23 AL28 AT20 AZ28 BA20 BE16 BG22 BH22 BI27 BR29 BY28 CH21 CR22 CY28 CZ24 DE22 DJ27 DK18',
    'DO28 EE20 EG29 ES24 FI18 FK18 FO18 FR27 GB22 GE22 GI23 GL18 GR27 GT28 HR21 HU28 IE22 IL23 IQ23',
    'IS26 IT27 JO30 KW30 KZ20 LB28 LC32 LI21 LT20 LU20 LV21 LY25 MC27 MD24 ME22 MK19 MN20 MR27 MT31',
    'MU30 NI28 NL18 NO15 OM23 PK24 PL28 PS29 PT25 QA29 RO24 RS22 RU33 SA24 SC31 SD18 SE24 SI19 SK24',
    'SM27 SO23 ST25 SV28 TL23 TN24 TR26 UA29 VA22 VG24 XK20',
  ]
    .join(' ')
    .split(' ')
    .map((entry): [string, number] => [entry.slice(0, 2), Number(entry.slice(2))]),
);

/** The IBAN length of a country code, or undefined. */
export function ibanLength(country: string): number | undefined {
  return IBAN_LENGTHS.get(country);
}

/**
 * An IBAN without spaces, upper case: known country, its length, and check digits that make the
 * number (first four characters moved to the end, letters as 10-35) equal 1 modulo 97.
 */
export function ibanValid(iban: string): boolean {
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(iban) || ibanLength(iban.slice(0, 2)) !== iban.length) return false;
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const char of rearranged) {
    const code = char.charCodeAt(0);
    const value = code <= 57 ? code - 48 : code - 55;
    remainder = (remainder * (value > 9 ? 100 : 10) + value) % 97;
  }
  return remainder === 1;
}
