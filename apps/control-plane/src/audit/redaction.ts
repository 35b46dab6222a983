// What an audit record must never hold, decided by what a value is rather than by a field's name
// alone (issue 17 item 3): the secret fields of the resources the admin API knows (a provider's
// credentials, a virtual key's `key`, an invite's accept token, a webhook's headers), the fields
// that hold secrets wherever they appear (passwords, client secrets, tokens, credentials), and any
// string that is key material whatever field holds it (this API's keys and invite tokens, provider
// keys, JWTs, bearer credentials, private keys, long random tokens). Everything else stays readable:
// a policy's `{"key": "api_key"}` conditions and group_by, ids, names, counters.

const REDACTED = '[redacted]';
const MAX_DEPTH = 8;

/** A path below the request body; `*` matches any key of an object or any item of an array. */
type Path = readonly string[];

/**
 * Secret fields of known resources, by audit resource type (the route's `audit.resourceType`). The
 * whole value under the path is a secret, whatever its shape (a credentials object, a header map).
 */
const RESOURCE_SECRETS: Readonly<Record<string, readonly Path[]>> = {
  integration: [['credentials']],
  provider: [['credentials'], ['key']],
  virtual_key: [['credentials'], ['key']],
  user_invite: [['token']],
  guardrail: [
    ['checks', '*', 'parameters', 'headers'],
    ['checks', '*', 'parameters', 'credentials'],
  ],
};

/**
 * Fields whose values are secrets in every resource of this API (exact names, lower case, `-` read
 * as `_`): passwords, client and access secrets, tokens, credentials, authorisation headers and
 * header maps. Exact, so `api_key_id`, `max_tokens`, `group_by_key` or a condition's `key` stay.
 */
const SECRET_FIELDS = new Set([
  'password',
  'passwd',
  'new_password',
  'current_password',
  'secret',
  'client_secret',
  'aws_secret_access_key',
  'aws_session_token',
  'session_token',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'accept_token',
  'api_key',
  'apikey',
  'x_service_api_key',
  'private_key',
  'service_account_json',
  'credentials',
  'authorization',
  'proxy_authorization',
  'cookie',
  'set_cookie',
  'custom_headers',
  'headers',
]);

/** Key material by its form: prefixes of this API's and providers' keys, JWTs, private keys. */
const KEY_MATERIAL: readonly RegExp[] = [
  /\baigw_[A-Za-z0-9_-]{16,}/, // this API's keys (aigw_...) and invite tokens (aigw_invite_...)
  /\b(sk|pk|rk)[-_](?:[A-Za-z0-9]+[-_])*[A-Za-z0-9]{16,}/, // OpenAI, Anthropic, Stripe-style keys
  /\b(ghp|gho|ghs|ghu|github_pat|xox[abpr]|glpat|hf|AIza)[-_A-Za-z0-9]{16,}/,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/, // a JWT
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
  /\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}/i,
];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Bits per character of `text` (Shannon). */
function entropy(text: string): number {
  const counts = new Map<string, number>();
  for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / text.length) * Math.log2(n / text.length);
  return bits;
}

/**
 * True when `value` is (or holds) key material: a known key or token form, or one unbroken run of
 * 24+ characters mixing lower case, upper case and digits at random, or mixed case alone with a
 * near-random spread (a generated secret), or 32+ hex digits (a hex key). Uuids, slugs, model
 * names and words are not.
 */
export function isKeyMaterial(value: string): boolean {
  if (KEY_MATERIAL.some((pattern) => pattern.test(value))) return true;
  // `/`, `+` and `=` stay inside a run: base64 secrets hold them (split there, a 40-character
  // secret became two short runs and passed as plain text).
  for (const run of value.split(/[\s"',;:&?()[\]{}<>]+/)) {
    if (run.length < 24 || UUID.test(run)) continue;
    if (/^[0-9a-f]{32,}$/i.test(run) && /[0-9]/.test(run) && /[a-f]/i.test(run)) return true;
    const lower = /[a-z]/.test(run);
    const upper = /[A-Z]/.test(run);
    const classes = Number(lower) + Number(upper) + Number(/[0-9]/.test(run));
    if (classes === 3 && entropy(run) >= 3.5) return true;
    // A generated secret without a digit (one in ~60 random base64 strings of 24 characters):
    // mixed case and near-random spread, which words and camelCase names do not reach.
    if (lower && upper && entropy(run) >= 4.1) return true;
  }
  return false;
}

const normalised = (name: string) => name.toLowerCase().replaceAll('-', '_');

function matchesHere(paths: readonly Path[], name: string): { whole: boolean; below: Path[] } {
  let whole = false;
  const below: Path[] = [];
  for (const path of paths) {
    const head = path[0];
    if (head !== '*' && head !== name) continue;
    if (path.length === 1) whole = true;
    else below.push(path.slice(1));
  }
  return { whole, below };
}

function redact(value: unknown, paths: readonly Path[], depth: number): unknown {
  if (typeof value === 'string') return isKeyMaterial(value) ? REDACTED : value;
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_DEPTH) return '[truncated]';
  if (Array.isArray(value))
    return value.map((item, i) => {
      const { whole, below } = matchesHere(paths, String(i));
      return whole ? REDACTED : redact(item, below, depth + 1);
    });
  const out: Record<string, unknown> = {};
  for (const [name, inner] of Object.entries(value)) {
    const { whole, below } = matchesHere(paths, name);
    out[name] = whole || SECRET_FIELDS.has(normalised(name)) ? REDACTED : redact(inner, below, depth + 1);
  }
  return out;
}

/**
 * A deep copy of a request's body (or query) with every secret replaced by `[redacted]`: the known
 * secret fields of `resourceType`, fields that hold secrets in every resource, and key material
 * wherever it appears.
 */
export function redactSecrets(value: unknown, resourceType = ''): unknown {
  return redact(value, RESOURCE_SECRETS[resourceType] ?? [], 0);
}
