// Opaque keyset cursors: the (time, id) of the last row of a page, newest-first order.
import { invalidArgument } from './query-error.js';

export interface Cursor {
  readonly atMs: number;
  readonly id: string;
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.atMs, cursor.id])).toString('base64url');
}

export function decodeCursor(text: string): Cursor | null {
  if (text === '') return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (Array.isArray(value) && Number.isSafeInteger(value[0]) && typeof value[1] === 'string')
      return { atMs: value[0] as number, id: value[1] };
  } catch {
    // reported below
  }
  throw invalidArgument('cursor is not one this service returned');
}
