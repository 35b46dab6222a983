// Header values the gateway puts into a host name (Azure resource name, Vertex region and project id,
// Bedrock region) must be one plain DNS label, or `evil.com#` would choose the host the key goes to.
import { ssrfError } from './errors.js';

// ASCII classes spelled out, no `i` or `u` flag: case-insensitive Unicode matching would let the
// Kelvin sign (U+212A) match `k`, and lower-casing it afterwards would turn it into one.
const DNS_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/**
 * Returns `value` lower-cased if it is one DNS label (1-63 ASCII letters, digits and inner hyphens);
 * otherwise throws `invalid_header` with `param` = `headerName`.
 */
export function validateHostnameLabel(headerName: string, value: string): string {
  if (!DNS_LABEL.test(value)) {
    throw ssrfError(
      'invalid_header',
      `${headerName} must be a single DNS label: 1-63 letters, digits or hyphens, not starting or ending with a hyphen`,
      { param: headerName },
    );
  }
  return value.toLowerCase();
}
