// Reads a consistent snapshot of the entities gateways need, at one outbox revision.
import type { Entity, EntityKind } from '@aigw/proto';
import { type Kysely, sql } from 'kysely';
import type { ControlDatabase } from '../db/schema.js';

export interface SnapshotState {
  /** Highest outbox id included: every change up to it is reflected in `entities`. */
  readonly revision: number;
  readonly entities: readonly Entity[];
}

/** Reads one kind of entity inside the snapshot transaction. Each resource family adds its own. */
export type EntityReader = (trx: Kysely<ControlDatabase>) => Promise<Entity[]>;

export class SnapshotRepository {
  constructor(
    private readonly db: Kysely<ControlDatabase>,
    private readonly readers: ReadonlyMap<EntityKind, EntityReader> = new Map(),
  ) {}

  /**
   * Repeatable read: the revision and every entity come from the same database snapshot, so a
   * gateway applying change events with a higher revision afterwards misses nothing.
   */
  async read(kinds: readonly EntityKind[]): Promise<SnapshotState> {
    return this.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .setAccessMode('read only')
      .execute(async (trx) => {
        const row = await sql<{ revision: string | null }>`select max(id) as revision from outbox`.execute(
          trx,
        );
        const entities: Entity[] = [];
        for (const [kind, reader] of this.readers) {
          if (kinds.length === 0 || kinds.includes(kind)) entities.push(...(await reader(trx)));
        }
        return { revision: Number(row.rows[0]?.revision ?? 0), entities };
      });
  }
}
