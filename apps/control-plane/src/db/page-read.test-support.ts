// Test hook for "a page and its total in one snapshot": holds a list's count statement until its
// page statement has finished and a writer has committed a new matching row on another connection.
// Code that reads the two outside one snapshot then answers a total one larger than its page, every
// time; code that reads them in one snapshot does not. It patches pg's Client.query in this process
// (the control plane under test runs in it), because the app opens its own pool.
import pg from 'pg';

type Query = (this: pg.Client, ...args: unknown[]) => unknown;

export interface CountHold {
  /** Whether the count statement was held and the writer ran (a test asserts it, else it proved nothing). */
  readonly fired: () => boolean;
  /** Puts pg's query back; call in `finally`. */
  readonly release: () => void;
}

function sqlText(config: unknown): string | undefined {
  if (typeof config === 'string') return config;
  if (config && typeof config === 'object' && typeof (config as { text?: unknown }).text === 'string')
    return (config as { text: string }).text;
  return undefined;
}

/**
 * Arms the hook for one list of `table` (as Kysely prints it: `from "users"`): the list's page is
 * the select with `limit … offset …`, its total the `select count(*)`. Only the first count is held.
 */
export function holdCountUntilWritten(table: string, write: () => Promise<void>): CountHold {
  const from = `from "${table}"`;
  const isCount = (text: string) => /^select count\(\*\) as "\w+" from /.test(text) && text.includes(from);
  const isPage = (text: string) =>
    text.startsWith('select ') && text.includes(from) && /limit \$\d+ offset \$\d+$/.test(text);
  const original = pg.Client.prototype.query as unknown as Query;
  let fired = false;
  let pageSeen = false;
  // Settles once the page statement has finished, whether it succeeded or not.
  let pageIssued: (page: Promise<unknown>) => void = () => undefined;
  const pageFinished = new Promise<void>((resolve) => {
    pageIssued = (page) =>
      void page.then(
        () => resolve(),
        () => resolve(),
      );
  });
  const patched: Query = function (this: pg.Client, ...args: unknown[]) {
    const text = sqlText(args[0]);
    if (text === undefined || args.length > 2) return original.apply(this, args);
    if (!pageSeen && isPage(text)) {
      // Recorded even when the count came first (Promise.all) and is already waiting for it.
      pageSeen = true;
      const result = original.apply(this, args) as Promise<unknown>;
      pageIssued(result);
      return result;
    }
    if (fired || !isCount(text)) return original.apply(this, args);
    fired = true;
    return (async () => {
      // The page may still be running on another connection (Promise.all): let it finish first.
      await pageFinished;
      await write();
      return original.apply(this, args);
    })();
  };
  (pg.Client.prototype as unknown as { query: Query }).query = patched;
  return {
    fired: () => fired,
    release: () => {
      (pg.Client.prototype as unknown as { query: Query }).query = original;
    },
  };
}
