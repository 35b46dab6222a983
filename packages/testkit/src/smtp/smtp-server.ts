// A real SMTP server for tests (the `smtp-server` package on loopback): it keeps every message it
// accepted, with its envelope recipients and subject, and can refuse the first ones (451).
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  readonly from: string;
  readonly to: string[];
  readonly subject: string;
  /** The body, quoted-printable decoded. */
  readonly text: string;
  readonly raw: string;
}

export interface TestSmtpServer {
  readonly url: string;
  readonly received: ReceivedMail[];
  /** Messages refused so far. */
  readonly refused: () => number;
  /** Resolves when `count` messages have been accepted. */
  waitFor(count: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

/** RFC 2047 encoded words (`=?UTF-8?Q?...?=`, `=?UTF-8?B?...?=`) decoded; adjacent ones join. */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?UTF-8\?([QB])\?([^?]*)\?=/gi, (_, encoding: string, text: string) =>
      encoding.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(
            text
              .replace(/_/g, ' ')
              .replace(/=([0-9A-F]{2})/gi, (_m, hex: string) =>
                String.fromCharCode(Number.parseInt(hex, 16)),
              ),
            'latin1',
          ).toString('utf8'),
    );
}

/** `Subject:` of a raw message, unfolded and decoded. */
export function subjectOf(raw: string): string {
  const head = raw.split(/\r?\n\r?\n/, 1)[0] ?? '';
  const unfolded = head.replace(/\r?\n(?=[ \t])/g, '');
  return decodeWords(/^Subject: (.*)$/im.exec(unfolded)?.[1]?.trim() ?? '');
}

/** The body of a single-part message, quoted-printable decoded when it says so. */
export function textOf(raw: string): string {
  const at = raw.search(/\r?\n\r?\n/);
  const head = at < 0 ? raw : raw.slice(0, at);
  const body = at < 0 ? '' : raw.slice(at).replace(/^\r?\n\r?\n/, '');
  if (!/^Content-Transfer-Encoding:\s*quoted-printable/im.test(head)) return body;
  const bytes = body
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

export async function startSmtpServer(options: { refuseFirst?: number } = {}): Promise<TestSmtpServer> {
  let toRefuse = options.refuseFirst ?? 0;
  let refused = 0;
  const received: ReceivedMail[] = [];
  const waiters: { count: number; resolve: (mails: ReceivedMail[]) => void }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (toRefuse > 0) {
          toRefuse--;
          refused++;
          callback(Object.assign(new Error('try again later'), { responseCode: 451 }));
          return;
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        const from = session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address;
        received.push({
          from,
          to: session.envelope.rcptTo.map((r) => r.address),
          subject: subjectOf(raw),
          text: textOf(raw),
          raw,
        });
        for (const w of waiters.filter((w) => received.length >= w.count)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve([...received]);
        }
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    refused: () => refused,
    waitFor(count) {
      if (received.length >= count) return Promise.resolve([...received]);
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
