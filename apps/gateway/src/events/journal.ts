// The write-ahead journal of request events: each batch is written here (one write(2) into the page
// cache) in the event-loop turn its requests completed, before it waits to be published, and
// forgotten once JetStream acked it or the spool took it. A process that dies (SIGKILL, OOM, a
// crash) loses no event it published: the next start hands what its journal still holds to the
// spool, which replays it. A machine that loses power may lose the last writes the kernel had not
// flushed (no fsync per batch: that would cost milliseconds a request); docs/request-events.md.
//
// Files `journal-<start ms>-<n>.log` in the spool directory, records framed as spool records
// (length, CRC-32, message id, payload), rotated at `rotateBytes`; a file goes once every batch in
// it is settled and it is no longer the one written.
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { decodeRecords, encodeRecord, type SpoolRecord } from './spool-record.js';

const JOURNAL_NAME = /^journal-(\d+)-(\d+)\.log$/;

export interface JournalOptions {
  readonly dir: string;
  /** Size at which the journal moves to a new file (default 4 MiB). */
  readonly rotateBytes?: number;
  /** A write failed (disk full, no directory): the batch goes on unjournaled. */
  readonly onWriteFailed: (err: unknown, events: number) => void;
}

interface JournalFile {
  readonly path: string;
  fd: number | undefined;
  bytes: number;
  /** Events written to this file and not yet settled. */
  outstanding: number;
}

/** Where a journaled batch lives, to settle it with. */
export type JournalEntry = JournalFile | undefined;

export class Journal {
  private readonly start = Date.now();
  private next = 0;
  private active: JournalFile | undefined;
  private readonly rotateBytes: number;

  constructor(private readonly options: JournalOptions) {
    this.rotateBytes = options.rotateBytes ?? 4 * 1024 * 1024;
    mkdirSync(options.dir, { recursive: true });
  }

  /**
   * The journals a previous process left (it died before settling them), in the order written;
   * `remove` deletes them once their records are safe elsewhere. Only files of other processes:
   * call before the first write.
   */
  static leftovers(dir: string): { records: SpoolRecord[]; damaged: number; remove(): void } {
    const names = readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile() && JOURNAL_NAME.test(e.name))
      .map((e) => e.name)
      .sort((a, b) => order(a) - order(b));
    const records: SpoolRecord[] = [];
    let damaged = 0;
    for (const name of names) {
      const decoded = decodeRecords(readFileSync(join(dir, name)));
      records.push(...decoded.records);
      // A torn last write: that batch's requests had not completed their write either.
      if (decoded.damage) damaged++;
    }
    return {
      records,
      damaged,
      remove: () => {
        for (const name of names) unlinkSync(join(dir, name));
      },
    };
  }

  /**
   * Writes one batch; returns where it lives (undefined when the write failed). `frame`: the batch
   * already framed as its record (event-encoder.ts batchRecord), written as it is.
   */
  write(msgId: string, payload: Uint8Array, events: number, frame?: Buffer): JournalEntry {
    try {
      const file = this.file();
      frame ??= encodeRecord(msgId, payload);
      writeSync(file.fd as number, frame);
      file.bytes += frame.length;
      file.outstanding += events;
      if (file.bytes >= this.rotateBytes) this.rotate();
      return file;
    } catch (err) {
      this.options.onWriteFailed(err, events);
      return undefined;
    }
  }

  /** The batch's events are acked or spooled: once a file has none left and is rotated, it goes. */
  settle(entry: JournalEntry, events: number): void {
    if (!entry) return;
    entry.outstanding -= events;
    if (entry.outstanding <= 0 && entry !== this.active) remove(entry);
  }

  /** Closes the file written; it is removed when nothing in it is outstanding. */
  close(): void {
    const file = this.active;
    this.active = undefined;
    if (!file) return;
    closeFd(file);
    if (file.outstanding <= 0) remove(file);
  }

  private file(): JournalFile {
    if (this.active) return this.active;
    const path = join(this.options.dir, `journal-${this.start}-${this.next++}.log`);
    this.active = { path, fd: openSync(path, 'a'), bytes: 0, outstanding: 0 };
    return this.active;
  }

  private rotate(): void {
    const file = this.active;
    this.active = undefined;
    if (!file) return;
    closeFd(file);
    if (file.outstanding <= 0) remove(file);
  }
}

function order(name: string): number {
  const match = JOURNAL_NAME.exec(name);
  return match ? Number(match[1]) * 1e6 + Number(match[2]) : 0;
}

function closeFd(file: JournalFile): void {
  if (file.fd === undefined) return;
  try {
    closeSync(file.fd);
  } catch {
    // Already closed or gone: nothing left to release.
  }
  file.fd = undefined;
}

function remove(file: JournalFile): void {
  closeFd(file);
  try {
    unlinkSync(file.path);
  } catch {
    // Removed already (close after rotate): nothing to do.
  }
}
