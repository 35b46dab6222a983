// A gateway-like process for the journal test: publishes COUNT events (ids `<PREFIX>-<n>`) with a
// linger so long that none is sent, says "journaled" once the turn that wrote them has passed, then
// waits to be killed.
import { RequestEvent } from '@aigw/proto';
import { connectNats, createLogger } from '@aigw/runtime';
import { createEventPublisher } from './event-publisher.js';

const log = createLogger({ app: 'journal-child', level: 'silent' });
const env = process.env;
const nc = await connectNats({ url: env.NATS_URL as string, name: 'journal-child', log });
const publisher = createEventPublisher({
  nc,
  subject: env.SUBJECT as string,
  spoolDir: env.SPOOL_DIR as string,
  maxSpoolBytes: 16 * 1024 * 1024,
  lingerMs: 600_000,
  log,
});
for (let n = 0; n < Number(env.COUNT); n++) {
  publisher.publish(() =>
    RequestEvent.fromPartial({ schemaVersion: 1, id: `${env.PREFIX}-${n}`, method: 'POST', statusCode: 200 }),
  );
}
setImmediate(() => setImmediate(() => process.stdout.write('journaled\n')));
setInterval(() => {}, 60_000);
