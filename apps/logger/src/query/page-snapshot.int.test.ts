// ListLogs with include_total answers its page and total from one snapshot: a plugin holds the
// page statement's answer until a new visible log is committed on another connection, so a count
// read in a later snapshot would be one larger than the page (it was, before readPageAndTotal).
import type { ListLogsRequest } from '@aigw/proto';
import { test } from '@aigw/testkit';
import type { Kysely, KyselyPlugin } from 'kysely';
import { describe, expect } from 'vitest';
import type { LogsDatabase } from '../db/schema.js';
import { listLogs } from './logs.query.js';
import {
  callerOf,
  filterOf,
  makeEvents,
  openLogsDatabase,
  storeEvents,
  visible,
} from './query.test-support.js';

/** `db` whose first statement's answer waits for `write`; `fired` says whether it did. */
function holdFirstAnswer(db: Kysely<LogsDatabase>, write: () => Promise<void>) {
  let fired = false;
  const plugin: KyselyPlugin = {
    transformQuery: (args) => args.node,
    async transformResult(args) {
      if (!fired) {
        fired = true;
        await write();
      }
      return args.result;
    },
  };
  return { db: db.withPlugin(plugin), fired: () => fired };
}

const request = (partial: Partial<ListLogsRequest>): ListLogsRequest => ({
  caller: callerOf(),
  filter: filterOf(),
  pageSize: 500,
  cursor: '',
  includeTotal: true,
  includeBodies: false,
  ...partial,
});

describe('ListLogs page and total', () => {
  test('come from one snapshot while a log is committed between the two reads', async ({ pg }) => {
    const database = await openLogsDatabase(pg);
    try {
      const events = makeEvents(40, 5).filter((e) => visible(e, callerOf()));
      const late = events.pop();
      if (!late) throw new Error('no visible event generated');
      await storeEvents(database.db, events);
      const hold = holdFirstAnswer(database.db, () => storeEvents(database.db, [late]));

      const listed = await listLogs(hold.db, request({}));

      expect(hold.fired()).toBe(true);
      expect(listed.nextCursor).toBe('');
      expect([listed.logs.length, listed.total]).toEqual([events.length, events.length]);
      // The late log is one the list shows: the hold made a real difference.
      const after = await listLogs(database.db, request({}));
      expect(after.total).toBe(events.length + 1);
    } finally {
      await database.close();
    }
  });
});
