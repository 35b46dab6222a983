// The bounded on-disk spool: append-only segment files of framed records, written in batches by one
// serial writer, sealed when full or when a replay wants them, deleted only once fully acked.
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { type FileHandle, open, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '@aigw/runtime';
import { errorMessage } from './error-message.js';
import { type DecodedRecords, decodeRecords, encodeRecord } from './spool-record.js';

/** The format version is in the name, so a future layout can sit beside (and never be misread as) v1. */
const SEGMENT_NAME = /^requests-v1-(\d{12})\.spool$/;

export interface SpoolSegment {
  readonly seq: number;
  readonly name: string;
  readonly path: string;
  bytes: number;
  /** Offsets of records this process has seen acked, so a retried replay never re-sends them. */
  readonly acked: Set<number>;
  damageReported: boolean;
}

export type AppendResult = 'queued' | 'full' | 'closed';

export interface SpoolOptions {
  readonly dir: string;
  /** Hard bound on segment files plus bytes waiting to be written. */
  readonly maxBytes: number;
  /** A segment is sealed once it reaches this size. */
  readonly segmentBytes: number;
  /** Bound on bytes held in memory waiting for the writer (the rest of maxBytes is on disk). */
  readonly maxBufferedBytes: number;
  readonly log: Logger;
  /** Events (the weights of records) that reached the file. */
  onWritten(events: number): void;
  /** Events lost to a failed write. */
  onWriteFailed(events: number): void;
}

export class Spool {
  private readonly sealed: SpoolSegment[] = [];
  private active: { segment: SpoolSegment; handle: FileHandle } | undefined;
  private pending: Buffer[] = [];
  /** Events in each pending record (a record holds one batch). */
  private pendingWeights: number[] = [];
  private flushQueued = false;
  /** Bytes appended but not yet on disk (queued or being written). */
  private bufferedBytes = 0;
  private diskBytes = 0;
  private lastSeq = 0;
  private chain: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(private readonly options: SpoolOptions) {
    // Synchronous on purpose: this runs once at startup, and the bound must count what a previous
    // process left behind before the first append is accepted.
    mkdirSync(options.dir, { recursive: true });
    for (const name of readdirSync(options.dir).sort()) {
      const match = SEGMENT_NAME.exec(name);
      if (!match) continue;
      const segment = newSegment(Number(match[1]), name, options.dir);
      segment.bytes = statSync(segment.path).size;
      this.sealed.push(segment);
      this.diskBytes += segment.bytes;
      this.lastSeq = Math.max(this.lastSeq, segment.seq);
    }
  }

  /** Bytes on disk plus bytes waiting to be written. */
  get bytes(): number {
    return this.diskBytes + this.bufferedBytes;
  }

  /**
   * Settles once every record appended so far is written (or its write failed); undefined when
   * none is waiting. Unlike idle(), later appends do not move it on.
   */
  written(): Promise<void> | undefined {
    return this.bufferedBytes > 0 ? this.chain : undefined;
  }

  hasRecords(): boolean {
    return this.sealed.length > 0 || this.active !== undefined || this.bufferedBytes > 0;
  }

  /**
   * Queues one record (`weight` = the events it holds) for the writer; synchronous and never
   * touches the disk itself.
   */
  append(msgId: string, payload: Uint8Array, weight = 1): AppendResult {
    if (this.closed) return 'closed';
    const frame = encodeRecord(msgId, payload);
    if (this.bytes + frame.length > this.options.maxBytes) return 'full';
    if (this.bufferedBytes + frame.length > this.options.maxBufferedBytes) return 'full';
    this.pending.push(frame);
    this.pendingWeights.push(weight);
    this.bufferedBytes += frame.length;
    if (!this.flushQueued) {
      this.flushQueued = true;
      void this.enqueue(() => {
        this.flushQueued = false;
        return this.writePending();
      });
    }
    return 'queued';
  }

  /** Closes the segment being written (after queued writes) so a replay can read it. */
  seal(): Promise<void> {
    return this.enqueue(() => this.sealActive());
  }

  /** Sealed segments, oldest first. */
  sealedSegments(): readonly SpoolSegment[] {
    return [...this.sealed];
  }

  async read(segment: SpoolSegment): Promise<DecodedRecords> {
    return decodeRecords(await readFile(segment.path));
  }

  /** Deletes a fully acked segment. */
  async remove(segment: SpoolSegment): Promise<void> {
    try {
      await unlink(segment.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    const index = this.sealed.indexOf(segment);
    if (index >= 0) this.sealed.splice(index, 1);
    this.diskBytes -= segment.bytes;
  }

  /** Resolves once every record appended so far has been written (or failed). */
  async idle(): Promise<void> {
    let tail: Promise<void>;
    do {
      tail = this.chain;
      await tail;
    } while (tail !== this.chain);
  }

  /** Writes what is queued, seals the last segment and refuses further appends. */
  async close(): Promise<void> {
    this.closed = true;
    await this.seal();
    await this.idle();
  }

  private enqueue(op: () => Promise<void>): Promise<void> {
    const next = this.chain.then(op).catch((err: unknown) => {
      this.options.log.error({ err: errorMessage(err), dir: this.options.dir }, 'request event spool error');
    });
    this.chain = next;
    return next;
  }

  private async writePending(): Promise<void> {
    const batch = this.pending;
    const weights = this.pendingWeights;
    this.pending = [];
    this.pendingWeights = [];
    if (batch.length === 0) return;
    const size = batch.reduce((sum, frame) => sum + frame.length, 0);
    let written = 0;
    try {
      const active = this.active ?? (await this.openSegment());
      const data = batch.length === 1 ? batch[0]! : Buffer.concat(batch, size);
      try {
        while (written < size) {
          const { bytesWritten } = await active.handle.write(data, written, size - written);
          written += bytesWritten;
        }
      } finally {
        active.segment.bytes += written;
      }
    } catch (err) {
      this.options.log.error(
        { err: errorMessage(err), dir: this.options.dir, records: batch.length },
        'request event spool write failed',
      );
    } finally {
      this.bufferedBytes -= size;
      this.diskBytes += written;
    }
    let complete = 0;
    let covered = 0;
    let events = 0;
    for (const [i, frame] of batch.entries()) {
      if (covered + frame.length > written) break;
      covered += frame.length;
      complete += 1;
      events += weights[i] ?? 1;
    }
    if (events > 0) this.options.onWritten(events);
    if (complete < batch.length) {
      this.options.onWriteFailed(weights.slice(complete).reduce((sum, w) => sum + w, 0));
      // A torn record ends what a reader can use of this segment: start a fresh one.
      await this.sealActive();
    } else if (this.active && this.active.segment.bytes >= this.options.segmentBytes) {
      await this.sealActive();
    }
  }

  private async openSegment(): Promise<{ segment: SpoolSegment; handle: FileHandle }> {
    this.lastSeq += 1;
    const segment = newSegment(this.lastSeq, segmentName(this.lastSeq), this.options.dir);
    const handle = await open(segment.path, 'a');
    this.active = { segment, handle };
    return this.active;
  }

  private async sealActive(): Promise<void> {
    const active = this.active;
    if (!active) return;
    this.active = undefined;
    try {
      await active.handle.close();
    } finally {
      this.sealed.push(active.segment);
    }
  }
}

function segmentName(seq: number): string {
  return `requests-v1-${String(seq).padStart(12, '0')}.spool`;
}

function newSegment(seq: number, name: string, dir: string): SpoolSegment {
  return { seq, name, path: join(dir, name), bytes: 0, acked: new Set(), damageReported: false };
}
