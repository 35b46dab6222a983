// Alert e-mail delivery from the alerts table (an outbox): claims due alerts, sends each one message
// through SMTP (nodemailer), and records the outcome. A failure is retried with backoff from the
// row itself, so neither a failing SMTP server nor a restart loses an alert.
import type { Logger } from '@aigw/runtime';
import { type Kysely, sql } from 'kysely';
import nodemailer from 'nodemailer';
import type { ControlDatabase } from '../db/schema.js';
import { alertMail, subjectName } from './alert-mail.js';
import { alertRecipients } from './alert-recipients.js';
import { type AlertRow, alertDb } from './alerts.db.js';

export interface AlertMailerOptions {
  readonly db: Kysely<ControlDatabase>;
  readonly log: Logger;
  /** smtp:// or smtps:// URL (credentials may be in it: it is never logged). */
  readonly smtpUrl: string;
  readonly from: string;
  /** Connection, greeting and socket timeout of one SMTP conversation. */
  readonly timeoutMs: number;
  /** First retry after this long, doubling up to `retryMaxMs`. */
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  /** After this many failed attempts the alert is marked `failed` (it stays listed). */
  readonly maxAttempts: number;
  /** How often due alerts are looked for when nothing woke the mailer. */
  readonly pollMs: number;
}

export interface AlertMailer {
  start(): void;
  /** Looks for due alerts now (a new alert was stored). */
  wake(): void;
  /** Sends every alert due now; resolves with how many were sent. */
  deliverDue(): Promise<number>;
  stop(): Promise<void>;
}

const BATCH = 20;

/** Delay before attempt `attempts + 1`, after `attempts` failures. */
export function retryDelayMs(attempts: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(attempts - 1, 0), 30));
}

export function createAlertMailer(options: AlertMailerOptions): AlertMailer {
  const { db, log, from } = options;
  const transport = nodemailer.createTransport({
    url: options.smtpUrl,
    connectionTimeout: options.timeoutMs,
    greetingTimeout: options.timeoutMs,
    socketTimeout: options.timeoutMs,
  });
  // A claimed alert is not due again before its send could have finished (a replica that dies
  // mid-send leaves it to be retried after this).
  const leaseMs = options.timeoutMs * 3;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;
  let again = false;
  let stopped = false;

  async function claim(): Promise<AlertRow[]> {
    const result = await sql<AlertRow>`
      update alerts
      set email_attempts = email_attempts + 1,
          email_next_attempt_at = now() + ${leaseMs} * interval '1 millisecond'
      where id in (
        select id from alerts
        where email_state = 'pending' and email_next_attempt_at <= now()
        order by email_next_attempt_at
        limit ${BATCH}
        for update skip locked
      )
      returning *`.execute(db);
    return result.rows;
  }

  async function deliver(row: AlertRow): Promise<boolean> {
    const alerts = alertDb(db);
    const workspaces = [row.workspace_id].filter((w): w is string => w !== null);
    const recipients = await alertRecipients(db, row.organisation_id, workspaces);
    if (recipients.length === 0) {
      await alerts
        .updateTable('alerts')
        .set({ email_state: 'no_recipients', email_next_attempt_at: null, email_recipients: '[]' })
        .where('id', '=', row.id)
        .execute();
      log.warn({ alertId: row.id }, 'alert e-mail: nobody to send it to');
      return false;
    }
    const mail = alertMail(row, await subjectName(db, row));
    try {
      await transport.sendMail({
        from,
        to: recipients.map((r) => r.email),
        subject: mail.subject,
        text: mail.text,
        headers: { 'X-Alert-Id': row.id },
      });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const gaveUp = row.email_attempts >= options.maxAttempts;
      const delay = retryDelayMs(row.email_attempts, options.retryBaseMs, options.retryMaxMs);
      await alerts
        .updateTable('alerts')
        .set({
          email_state: gaveUp ? 'failed' : 'pending',
          email_next_attempt_at: gaveUp ? null : new Date(Date.now() + delay),
          email_last_error: message.slice(0, 1000),
        })
        .where('id', '=', row.id)
        .where('email_state', '=', 'pending')
        .execute();
      (gaveUp ? log.error.bind(log) : log.warn.bind(log))(
        { alertId: row.id, attempts: row.email_attempts, retryInMs: gaveUp ? null : delay, err: message },
        gaveUp ? 'alert e-mail failed: giving up' : 'alert e-mail failed: will retry',
      );
      return false;
    }
    await alerts
      .updateTable('alerts')
      .set({
        email_state: 'sent',
        email_sent_at: new Date(),
        email_next_attempt_at: null,
        email_last_error: null,
        email_recipients: JSON.stringify(recipients),
      })
      .where('id', '=', row.id)
      .execute();
    log.info({ alertId: row.id, recipients: recipients.length }, 'alert e-mail sent');
    return true;
  }

  async function drain(): Promise<number> {
    let sent = 0;
    for (;;) {
      const rows = await claim();
      for (const row of rows) if (await deliver(row)) sent++;
      if (rows.length < BATCH || stopped) return sent;
    }
  }

  function deliverDue(): Promise<number> {
    if (running) {
      again = true;
      return running;
    }
    running = drain().finally(() => {
      running = undefined;
      if (again && !stopped) {
        again = false;
        void deliverDue().catch(() => undefined);
      }
    });
    return running;
  }

  function tick() {
    if (stopped) return;
    deliverDue()
      .catch((err: unknown) =>
        log.warn({ err: err instanceof Error ? err.message : String(err) }, 'alert e-mail pass failed'),
      )
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, options.pollMs);
      });
  }

  return {
    start() {
      stopped = false;
      tick();
    },
    wake() {
      if (!stopped) void deliverDue().catch(() => undefined);
    },
    deliverDue,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running?.catch(() => undefined);
      transport.close();
    },
  };
}
