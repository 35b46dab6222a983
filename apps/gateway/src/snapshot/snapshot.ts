// The gateway's view of control-plane entities: one immutable object with the indexes the request
// path reads. Nothing mutates a live snapshot; `withChanges` returns a new one (ARCHITECTURE part 3).
import { type Entity, EntityKind, snapshotChecksum } from '@aigw/proto';

type Body = NonNullable<Entity['body']>;
type CaseOf<K extends Body['$case']> = Extract<Body, { $case: K }>['value'];

/** An entity narrowed to one body case (never a tombstone). */
export type EntityOf<K extends Body['$case']> = Entity & { readonly body: { $case: K; value: CaseOf<K> } };

const key = (kind: EntityKind, id: string): string => `${kind}:${id}`;
const slugKey = (kind: EntityKind, scope: string, slug: string): string => `${kind}:${scope}:${slug}`;

/** Kinds addressed by slug in requests, within a workspace (`@slug`, virtual key, config, guardrail). */
const SLUGGED = new Set<EntityKind>([
  EntityKind.PROVIDER,
  EntityKind.VIRTUAL_KEY,
  EntityKind.CONFIG,
  EntityKind.GUARDRAIL,
]);

function slugOf(entity: Entity): string | undefined {
  const body = entity.body;
  if (!body || !SLUGGED.has(entity.kind)) return undefined;
  return (body.value as { slug?: string }).slug || undefined;
}

export class Snapshot {
  /** Every entity the gateway holds, tombstones included, by `<kind>:<id>`. */
  readonly #all: ReadonlyMap<string, Entity>;
  readonly #byHash = new Map<string, EntityOf<'apiKey'>>();
  readonly #bySlug = new Map<string, Entity>();
  readonly #byOrg = new Map<string, Entity[]>();
  #checksum: string | undefined;

  private constructor(
    all: ReadonlyMap<string, Entity>,
    /** The control plane's revision this snapshot was built from (max outbox id seen). */
    readonly revision: number,
    /** When it was built (ms since the epoch): snapshot age for metrics and readiness. */
    readonly builtAtMs: number,
  ) {
    this.#all = all;
    for (const entity of all.values()) {
      if (entity.tombstone || !entity.body) continue;
      if (entity.body.$case === 'apiKey')
        this.#byHash.set(entity.body.value.keyHash, entity as EntityOf<'apiKey'>);
      const slug = slugOf(entity);
      if (slug !== undefined) this.#bySlug.set(slugKey(entity.kind, entity.workspaceId, slug), entity);
      const list = this.#byOrg.get(key(entity.kind, entity.organisationId));
      if (list) list.push(entity);
      else this.#byOrg.set(key(entity.kind, entity.organisationId), [entity]);
    }
  }

  static empty(): Snapshot {
    return new Snapshot(new Map(), 0, Date.now());
  }

  /** A snapshot of exactly these entities (a full snapshot from the control plane or the LKG file). */
  static of(entities: Iterable<Entity>, revision: number, builtAtMs = Date.now()): Snapshot {
    const all = new Map<string, Entity>();
    for (const entity of entities) all.set(key(entity.kind, entity.id), entity);
    return new Snapshot(all, revision, builtAtMs);
  }

  /**
   * A new snapshot with these changes applied: a change wins only when its version is greater than
   * the held one (idempotent and order-tolerant; tombstones are kept). Returns `this` when nothing
   * changed, so callers can skip the swap.
   */
  withChanges(changes: Iterable<Entity>, revision = this.revision): Snapshot {
    let next: Map<string, Entity> | undefined;
    for (const entity of changes) {
      const k = key(entity.kind, entity.id);
      const held = (next ?? this.#all).get(k);
      if (held && held.version >= entity.version) continue;
      next ??= new Map(this.#all);
      next.set(k, entity);
    }
    if (!next) return revision > this.revision ? new Snapshot(this.#all, revision, Date.now()) : this;
    return new Snapshot(next, Math.max(revision, this.revision), Date.now());
  }

  /** Number of entities held, tombstones included. */
  get size(): number {
    return this.#all.size;
  }

  /**
   * The SnapshotService checksum of what this snapshot holds (`snapshotChecksum`), computed once:
   * anti-entropy compares it with the control plane's.
   */
  checksum(): string {
    this.#checksum ??= snapshotChecksum(this.#all.values());
    return this.#checksum;
  }

  /** Every entity held, tombstones included (for the LKG file and checksums). */
  entities(): IterableIterator<Entity> {
    return this.#all.values();
  }

  /** The held entity (or tombstone) of this kind and id. */
  get(kind: EntityKind, id: string): Entity | undefined {
    return this.#all.get(key(kind, id));
  }

  /** A live entity of one body case by id (undefined for tombstones and unknown ids). */
  find<K extends Body['$case']>(kind: EntityKind, $case: K, id: string): EntityOf<K> | undefined {
    const entity = this.#all.get(key(kind, id));
    return entity?.body?.$case === $case ? (entity as EntityOf<K>) : undefined;
  }

  /** The API key whose SHA-256 (lowercase hex) is `hash`. */
  apiKeyByHash(hash: string): EntityOf<'apiKey'> | undefined {
    return this.#byHash.get(hash);
  }

  /** A provider, virtual key, config or guardrail by slug within a workspace. */
  bySlug(kind: EntityKind, workspaceId: string, slug: string): Entity | undefined {
    return this.#bySlug.get(slugKey(kind, workspaceId, slug));
  }

  /** Live entities of a kind owned by an organisation (policies, pricing); '' for platform-wide ones. */
  ofOrganisation(kind: EntityKind, organisationId: string): readonly Entity[] {
    return this.#byOrg.get(key(kind, organisationId)) ?? [];
  }
}
