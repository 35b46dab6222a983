// Drains the spool into JetStream: one segment at a time, a window of concurrent publishes with each
// record's message id, and a segment is deleted only after every record in it was acked.
import type { Logger } from '@aigw/runtime';
import { batchEventCount } from './batch.js';
import { errorMessage } from './error-message.js';
import type { EventCounters } from './event-metrics.js';
import type { NatsLink } from './nats-link.js';
import type { Spool, SpoolSegment } from './spool.js';
import type { SpoolRecord } from './spool-record.js';

export interface ReplayerOptions {
  readonly spool: Spool;
  readonly link: NatsLink;
  readonly subject: string;
  readonly concurrency: number;
  readonly timeoutMs: number;
  readonly counters: EventCounters;
  readonly log: Logger;
}

export class Replayer {
  private running: Promise<void> | undefined;
  private stopped = false;
  private failing = false;

  constructor(private readonly options: ReplayerOptions) {}

  /** Starts a replay unless one is running, nothing is spooled, or NATS is down. */
  kick(): void {
    if (this.running || this.stopped || !this.options.spool.hasRecords() || !this.options.link.js) return;
    this.running = this.run().finally(() => {
      this.running = undefined;
    });
  }

  /** Stops starting new publishes; resolves when the current replay has settled. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  private async run(): Promise<void> {
    const { spool, log } = this.options;
    try {
      while (!this.stopped && this.options.link.js && spool.hasRecords()) {
        await spool.seal();
        const segments = spool.sealedSegments();
        if (segments.length === 0) return;
        if (!this.failing)
          log.info(
            { segments: segments.length, spoolBytes: spool.bytes },
            'replaying spooled request events',
          );
        for (const segment of segments) {
          if (!(await this.replaySegment(segment))) return;
        }
        if (this.failing) log.info('request event spool replay recovered');
        this.failing = false;
      }
    } catch (err) {
      this.noteFailure(errorMessage(err));
    }
  }

  /** True when the segment was fully acked and deleted. */
  private async replaySegment(segment: SpoolSegment): Promise<boolean> {
    const decoded = await this.options.spool.read(segment);
    if (decoded.damage && !segment.damageReported) {
      segment.damageReported = true;
      this.options.counters.countDamagedSegment();
      this.options.log.warn(
        { segment: segment.name, records: decoded.records.length, ...decoded.damage },
        'skipping damaged tail of a request event spool segment',
      );
    }
    const todo = decoded.records.filter((record) => !segment.acked.has(record.offset));
    const failure = await this.publishAll(segment, todo);
    if (failure !== undefined) {
      this.noteFailure(failure, segment.name);
      return false;
    }
    if (!decoded.records.every((record) => segment.acked.has(record.offset))) return false;
    await this.options.spool.remove(segment);
    return true;
  }

  /** Publishes with a bounded window; stops at the first failure and returns its message. */
  private async publishAll(
    segment: SpoolSegment,
    records: readonly SpoolRecord[],
  ): Promise<string | undefined> {
    const { subject, timeoutMs, counters } = this.options;
    let next = 0;
    let failure: string | undefined;
    const worker = async (): Promise<void> => {
      while (failure === undefined && !this.stopped && next < records.length) {
        const record = records[next++]!;
        const js = this.options.link.js;
        if (!js) {
          failure = 'NATS disconnected';
          return;
        }
        try {
          await js.publish(subject, record.payload, { msgID: record.msgId, timeout: timeoutMs });
          segment.acked.add(record.offset);
          counters.countReplayed(batchEventCount(record.msgId));
        } catch (err) {
          failure ??= errorMessage(err);
        }
      }
    };
    const workers = Math.min(this.options.concurrency, records.length);
    await Promise.all(Array.from({ length: workers }, worker));
    return failure;
  }

  private noteFailure(message: string, segment?: string): void {
    if (this.failing) return;
    this.failing = true;
    this.options.log.warn(
      { err: message, segment, spoolBytes: this.options.spool.bytes },
      'request event spool replay paused; retrying',
    );
  }
}
