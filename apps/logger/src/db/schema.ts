// Typed view of the `logs` schema for Kysely.
import type { ColumnType, Generated } from 'kysely';

export const SCHEMA = 'logs';

export interface DeadLettersTable {
  id: Generated<string>;
  stream: string;
  subject: string;
  stream_seq: string;
  payload: Buffer;
  error: string;
  received_at: ColumnType<Date, never, never>;
}

export interface LogsDatabase {
  dead_letters: DeadLettersTable;
}
