import { describe, expect, test } from 'vitest';
import { authHeaders, credentialFrom, loadCredential, saveCredential } from './session.js';

class MemoryStorage {
  readonly items = new Map<string, string>();
  getItem(key: string) {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string) {
    this.items.set(key, value);
  }
  removeItem(key: string) {
    this.items.delete(key);
  }
}

describe('the signed-in credential', () => {
  test('a JWT is sent as a bearer token, anything else as the API key header', () => {
    const jwt = credentialFrom(' eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln \n');
    expect(jwt).toEqual({ kind: 'jwt', value: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln' });
    expect(authHeaders(jwt!)).toEqual({ authorization: 'Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln' });
    const key = credentialFrom('aigw_abc.def');
    expect(authHeaders(key!)).toEqual({ 'x-service-api-key': 'aigw_abc.def' });
    expect(credentialFrom('   ')).toBeUndefined();
  });

  test('kept in the given storage, removed on sign-out, and unreadable values mean signed out', () => {
    const storage = new MemoryStorage();
    saveCredential({ kind: 'api_key', value: 'aigw_x' }, storage);
    expect(loadCredential(storage)).toEqual({ kind: 'api_key', value: 'aigw_x' });
    saveCredential(undefined, storage);
    expect(storage.items.size).toBe(0);
    storage.setItem('aigw.console.credential', '{"kind":"cookie","value":1}');
    expect(loadCredential(storage)).toBeUndefined();
    storage.setItem('aigw.console.credential', 'not json');
    expect(loadCredential(storage)).toBeUndefined();
  });
});
