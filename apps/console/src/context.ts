// What every page reads: the typed API client, the signed-in caller, and sign-out.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Api } from './api/client.js';
import type { Me } from './api/me.js';

export interface ConsoleContext {
  readonly api: Api;
  readonly me: Me;
  signOut(): void;
}

export const Console = createContext<ConsoleContext | null>(null);

export function useConsole(): ConsoleContext {
  const value = useContext(Console);
  if (value === null) throw new Error('useConsole outside a signed-in console');
  return value;
}
