// The gateway's view of control-plane entities: one immutable object with the indexes the request
// path reads. Nothing mutates a live snapshot; `withChanges` returns a new one (ARCHITECTURE part 3).
import { type Entity, EntityKind, snapshotChecksum } from '@aigw/proto';

type Body = NonNullable<Entity['body']>;
type CaseOf<K extends Body['$case']> = Extract<Body, { $case: K }>['value'];

/** An entity narrowed to one body case (never a tombstone). */
export type EntityOf<K extends Body['$case']> = Entity & { readonly body: { $case: K; value: CaseOf<K> } };

const key = (kind: EntityKind, id: string): string => `${kind}:${id}`;

/**
 * An entity's key, built once per entity object: index hits are checked against the overlay on
 * every request, and a key built anew is a new string whose hash the map lookup must compute again.
 */
const entityKeys = new WeakMap<Entity, string>();
function entityKey(entity: Entity): string {
  let k = entityKeys.get(entity);
  if (k === undefined) {
    k = key(entity.kind, entity.id);
    entityKeys.set(entity, k);
  }
  return k;
}
const slugKey = (kind: EntityKind, scope: string, slug: string): string => `${kind}:${scope}:${slug}`;

/**
 * The `bySlug` scope of an organisation's own entities (no workspace, e.g. organisation-level
 * guardrails): slugs are unique per organisation, so '' alone would let two organisations collide.
 */
export const organisationScope = (organisationId: string): string => `org:${organisationId}`;

/**
 * Kinds addressed by slug in requests, within a workspace (`@slug`, virtual key, config, deployment,
 * guardrail, prompt, the partials prompts include by slug, MCP server at `/v1/mcp/<slug>`).
 */
const SLUGGED = new Set<EntityKind>([
  EntityKind.PROVIDER,
  EntityKind.VIRTUAL_KEY,
  EntityKind.CONFIG,
  EntityKind.DEPLOYMENT,
  EntityKind.GUARDRAIL,
  EntityKind.PROMPT,
  EntityKind.PROMPT_PARTIAL,
  EntityKind.MCP_SERVER,
]);

function slugOf(entity: Entity): string | undefined {
  const body = entity.body;
  if (!body || !SLUGGED.has(entity.kind)) return undefined;
  return (body.value as { slug?: string }).slug || undefined;
}

/** Entities by `<kind>:<id>` with their request-path indexes; built once, never changed. */
class Layer {
  readonly byHash = new Map<string, EntityOf<'apiKey'>>();
  readonly bySlug = new Map<string, Entity>();
  readonly byOrg = new Map<string, Entity[]>();

  constructor(readonly all: ReadonlyMap<string, Entity>) {
    for (const entity of all.values()) {
      if (entity.tombstone || !entity.body) continue;
      if (entity.body.$case === 'apiKey')
        this.byHash.set(entity.body.value.keyHash, entity as EntityOf<'apiKey'>);
      const slug = slugOf(entity);
      if (slug !== undefined) {
        const scope = entity.workspaceId || organisationScope(entity.organisationId);
        this.bySlug.set(slugKey(entity.kind, scope, slug), entity);
      }
      const list = this.byOrg.get(key(entity.kind, entity.organisationId));
      if (list) list.push(entity);
      else this.byOrg.set(key(entity.kind, entity.organisationId), [entity]);
    }
  }
}

const EMPTY = new Layer(new Map());

/**
 * Past this many changed entities the changes are folded into a new base. Each swap costs about the
 * overlay's size and a fold costs the whole snapshot, so √n balances the two: a change to a snapshot
 * of 100k entities costs ~300 map operations instead of a 100k-entry rebuild.
 */
const overlayLimit = (size: number): number => Math.max(256, Math.ceil(Math.sqrt(size)));

export class Snapshot {
  /** The bulk of the entities (shared by the snapshots derived from one load). */
  readonly #base: Layer;
  /** Entities changed since the base was built, tombstones included: they win over the base. */
  readonly #over: Layer;
  readonly #size: number;
  /** `ofOrganisation` lists touched by the overlay, merged on first use. */
  readonly #orgLists = new Map<string, readonly Entity[]>();
  #checksum: string | undefined;

  private constructor(
    base: Layer,
    over: Layer,
    /** The control plane's revision this snapshot was built from (max outbox id seen). */
    readonly revision: number,
    /** When it was built (ms since the epoch): snapshot age for metrics and readiness. */
    readonly builtAtMs: number,
  ) {
    this.#base = base;
    this.#over = over;
    let added = 0;
    for (const k of over.all.keys()) if (!base.all.has(k)) added++;
    this.#size = base.all.size + added;
  }

  static empty(): Snapshot {
    return new Snapshot(EMPTY, EMPTY, 0, Date.now());
  }

  /** A snapshot of exactly these entities (a full snapshot from the control plane or the LKG file). */
  static of(entities: Iterable<Entity>, revision: number, builtAtMs = Date.now()): Snapshot {
    const all = new Map<string, Entity>();
    for (const entity of entities) all.set(key(entity.kind, entity.id), entity);
    return new Snapshot(new Layer(all), EMPTY, revision, builtAtMs);
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
      const held = next?.get(k) ?? this.#held(k);
      if (held && held.version >= entity.version) continue;
      next ??= new Map(this.#over.all);
      next.set(k, entity);
    }
    const nextRevision = Math.max(revision, this.revision);
    if (!next)
      return revision > this.revision ? new Snapshot(this.#base, this.#over, revision, Date.now()) : this;
    if (next.size <= overlayLimit(this.#base.all.size))
      return new Snapshot(this.#base, new Layer(next), nextRevision, Date.now());
    const all = new Map(this.#base.all);
    for (const [k, entity] of next) all.set(k, entity);
    return new Snapshot(new Layer(all), EMPTY, nextRevision, Date.now());
  }

  /** Number of entities held, tombstones included. */
  get size(): number {
    return this.#size;
  }

  /** Every entity held, tombstones included (for the LKG file and checksums). */
  *entities(): IterableIterator<Entity> {
    yield* this.#over.all.values();
    for (const [k, entity] of this.#base.all) if (!this.#over.all.has(k)) yield entity;
  }

  /**
   * The SnapshotService checksum of what this snapshot holds (`snapshotChecksum`), computed once:
   * anti-entropy compares it with the control plane's.
   */
  checksum(): string {
    this.#checksum ??= snapshotChecksum(this.entities());
    return this.#checksum;
  }

  /** The held entity (or tombstone) of this kind and id. */
  get(kind: EntityKind, id: string): Entity | undefined {
    return this.#held(key(kind, id));
  }

  /** A live entity of one body case by id (undefined for tombstones and unknown ids). */
  find<K extends Body['$case']>(kind: EntityKind, $case: K, id: string): EntityOf<K> | undefined {
    const entity = this.#held(key(kind, id));
    return entity?.body?.$case === $case ? (entity as EntityOf<K>) : undefined;
  }

  /** The API key whose SHA-256 (lowercase hex) is `hash`. */
  apiKeyByHash(hash: string): EntityOf<'apiKey'> | undefined {
    return this.#current(this.#over.byHash.get(hash) ?? this.#base.byHash.get(hash));
  }

  /** A provider, virtual key, config, guardrail, prompt or partial by slug within a workspace (or `organisationScope`). */
  bySlug(kind: EntityKind, workspaceId: string, slug: string): Entity | undefined {
    const k = slugKey(kind, workspaceId, slug);
    return this.#current(this.#over.bySlug.get(k) ?? this.#base.bySlug.get(k));
  }

  /** Live entities of a kind owned by an organisation (policies, pricing); '' for platform-wide ones. */
  ofOrganisation(kind: EntityKind, organisationId: string): readonly Entity[] {
    const k = key(kind, organisationId);
    const base = this.#base.byOrg.get(k) ?? [];
    if (this.#over.all.size === 0) return base;
    let list = this.#orgLists.get(k);
    if (!list) {
      const changed = base.filter((e) => !this.#over.all.has(key(e.kind, e.id)));
      list = changed.length === base.length ? base : changed;
      const added = this.#over.byOrg.get(k);
      if (added) list = [...list, ...added];
      this.#orgLists.set(k, list);
    }
    return list;
  }

  #held(k: string): Entity | undefined {
    return (this.#over.all.size > 0 ? this.#over.all.get(k) : undefined) ?? this.#base.all.get(k);
  }

  /**
   * An index hit from the base is stale when the overlay replaced that entity since (a hit from the
   * overlay's own index is what the overlay holds; one from the base is what the base holds).
   */
  #current<T extends Entity>(hit: T | undefined): T | undefined {
    if (hit === undefined || this.#over.all.size === 0) return hit;
    const over = this.#over.all.get(entityKey(hit));
    return over === undefined || over === hit ? hit : undefined;
  }
}
