// Typed view of the `control` schema for Kysely.
import type { ColumnType, Generated } from 'kysely';

export const SCHEMA = 'control';

export interface OutboxTable {
  id: Generated<string>;
  subject: string;
  payload: Buffer;
  created_at: ColumnType<Date, never, never>;
  published_at: Date | null;
}

export interface ControlDatabase {
  outbox: OutboxTable;
}
