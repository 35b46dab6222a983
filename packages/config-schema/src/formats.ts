// Reusable zod string formats: names, slugs, DNS labels, header names, http(s) URLs.
import { z } from 'zod';

export const DNS_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;
const CONTROL = /\p{Cc}/u;

/** Free text such as a model name: 1-256 characters, no control characters. */
export const shortText = z
  .string()
  .min(1)
  .max(256)
  .refine((s) => !CONTROL.test(s), 'must not contain control characters');

/** A credential: kept as given, never echoed in messages. */
export const secret = z.string().min(1).max(16_384);

export const dnsLabel = z
  .string()
  .regex(DNS_LABEL, 'must be one DNS label: 1-63 letters, digits and inner hyphens')
  .transform((s) => s.toLowerCase());

export const slug = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,254}$/, "must be 1-255 letters, digits, '_', '.', ':' or '-'");

export const headerName = z
  .string()
  .regex(HEADER_NAME, 'must be an HTTP header name')
  .transform((s) => s.toLowerCase());

/** Anything but printable ASCII, and backslashes (WHATWG URL reads `\\` as `/`). */
const UNSAFE_URL_CHARS = /[^\x21-\x7e]|\\/;

/** Why `value` is not an acceptable http(s) URL, or undefined when it is. */
export function httpUrlProblem(value: string, allowQuery: boolean): string | undefined {
  const shape = allowQuery ? 'an http(s) URL' : 'an http(s) base URL';
  const rest = allowQuery ? 'credentials or fragment' : 'credentials, query or fragment';
  const problem = `must be ${shape} without ${rest}`;
  if (!/^https?:\/\/[^/]/i.test(value) || UNSAFE_URL_CHARS.test(value)) return problem;
  if (value.includes('#') || (!allowQuery && value.includes('?'))) return problem;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return problem;
  }
  const authority = value.replace(/^https?:\/\//i, '').split(/[/?]/, 1)[0] ?? '';
  if (url.username || url.password || authority.includes('@')) return problem;
  return url.hostname ? undefined : problem;
}

export function httpUrl(allowQuery: boolean) {
  return z
    .string()
    .max(2048)
    .superRefine((value, ctx) => {
      const problem = httpUrlProblem(value, allowQuery);
      if (problem) ctx.addIssue({ code: 'custom', message: problem, params: { code: 'invalid_url' } });
    });
}
