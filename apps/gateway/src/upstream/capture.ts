// Keeps what the request event needs from a body that streams past: the first `limit` bytes (the
// captured body, and the model for JSON) and the last 16 KiB (usage in an event stream's final
// chunks). Holds references to chunks instead of copying them while they flow.
const TAIL_BYTES = 16 * 1024;

/** Where forward() hands the chunks of a body as they pass. */
export interface ChunkSink {
  push(chunk: Buffer): void;
}

export class BodyCapture implements ChunkSink {
  private readonly headChunks: Buffer[] = [];
  private headBytes = 0;
  private tailChunks: Buffer[] = [];
  private tailBytes = 0;
  private headCache: Buffer | undefined;
  private sealed = false;
  total = 0;

  constructor(private readonly limit: number) {}

  // A method, not a bound closure: two captures are made per request.
  push(chunk: Buffer): void {
    if (this.sealed) return;
    this.total += chunk.length;
    if (this.headBytes < this.limit) {
      this.headChunks.push(chunk);
      this.headBytes += chunk.length;
    }
    this.tailChunks.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tailChunks.length > 1 && this.tailBytes - (this.tailChunks[0]?.length ?? 0) >= TAIL_BYTES) {
      this.tailBytes -= this.tailChunks.shift()?.length ?? 0;
    }
  }

  /** Ignores chunks from now on: what was seen so far is what the request event reports. */
  seal(): void {
    this.sealed = true;
  }

  /** The first `limit` bytes (read once the body is complete; the result is kept). */
  head(): Buffer {
    if (!this.headCache) {
      const head = this.headChunks.length === 1 ? this.headChunks[0]! : Buffer.concat(this.headChunks);
      this.headCache = head.length > this.limit ? head.subarray(0, this.limit) : head;
    }
    return this.headCache;
  }

  /** The last bytes seen (at least 16 KiB when that much passed). */
  tail(): Buffer {
    if (this.tailChunks.length === 1) return this.tailChunks[0]!;
    // The whole body was already joined as the head, and the tail still holds all of it: same bytes.
    const head = this.headCache;
    if (head !== undefined && head.length === this.total && this.tailBytes === this.total) return head;
    return Buffer.concat(this.tailChunks);
  }

  get truncated(): boolean {
    return this.total > this.limit;
  }

  /** The whole body, when it fit in the head. */
  complete(): Buffer | undefined {
    return this.truncated ? undefined : this.head();
  }
}
