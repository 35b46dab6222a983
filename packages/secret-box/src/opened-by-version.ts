// What an app opened from an entity's envelope, kept per entity and version: a request reads it
// from here, and an envelope is decrypted again only when its entity changes (a new version) or
// after it was pushed out. Bounded: beyond `max` entities the one kept longest goes first.

export class OpenedByVersion<T> {
  readonly #kept = new Map<string, { readonly version: number; readonly value: T }>();

  constructor(private readonly max = 10_000) {}

  /** What was kept for `key` at exactly `version`, undefined otherwise. */
  get(key: string, version: number): T | undefined {
    const kept = this.#kept.get(key);
    return kept?.version === version ? kept.value : undefined;
  }

  /** Keeps `value` for `key` at `version` (replacing another version's) and returns it. */
  set(key: string, version: number, value: T): T {
    if (!this.#kept.has(key) && this.#kept.size >= this.max) {
      const oldest = this.#kept.keys().next().value;
      if (oldest !== undefined) this.#kept.delete(oldest);
    }
    this.#kept.set(key, { version, value });
    return value;
  }

  delete(key: string): void {
    this.#kept.delete(key);
  }

  get size(): number {
    return this.#kept.size;
  }
}
