// The signed-in credential: an API key (sent as x-service-api-key) or a JWT (sent as a bearer
// token). Kept in sessionStorage only: it survives a reload of this tab and is gone when the tab
// closes; never in localStorage, a cookie or the URL. The console has no privilege of its own.
export interface Credential {
  readonly kind: 'api_key' | 'jwt';
  readonly value: string;
}

const STORAGE_KEY = 'aigw.console.credential';

/** A pasted credential: three dot-separated base64url parts is a JWT, anything else an API key. */
export function credentialFrom(text: string): Credential | undefined {
  const value = text.trim();
  if (value === '') return undefined;
  const jwt = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(value);
  return { kind: jwt ? 'jwt' : 'api_key', value };
}

export function authHeaders(credential: Credential): Record<string, string> {
  return credential.kind === 'jwt'
    ? { authorization: `Bearer ${credential.value}` }
    : { 'x-service-api-key': credential.value };
}

export function loadCredential(storage: Pick<Storage, 'getItem'> = sessionStorage): Credential | undefined {
  const raw = storage.getItem(STORAGE_KEY);
  if (raw === null) return undefined;
  try {
    const parsed = JSON.parse(raw) as Partial<Credential>;
    if ((parsed.kind === 'api_key' || parsed.kind === 'jwt') && typeof parsed.value === 'string')
      return { kind: parsed.kind, value: parsed.value };
  } catch {
    // unreadable: signed out
  }
  return undefined;
}

export function saveCredential(
  credential: Credential | undefined,
  storage: Pick<Storage, 'setItem' | 'removeItem'> = sessionStorage,
): void {
  if (credential === undefined) storage.removeItem(STORAGE_KEY);
  else storage.setItem(STORAGE_KEY, JSON.stringify(credential));
}
