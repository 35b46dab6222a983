// Admin lists answer a page and a total from one snapshot even while rows are written: the count
// statement is held until the page was read and a matching row committed on another connection
// (holdCountUntilWritten), so a list reading them on two connections fails here every time.
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { insertAlert } from '../alerts/alerts.test-support.js';
import { type OrgFixture, test } from '../users/users.test-support.js';
import { holdCountUntilWritten } from './page-read.test-support.js';

interface ListCase {
  readonly path: string;
  /** The table as the list's SQL names it. */
  readonly table: string;
  /** Commits one more row the list shows. */
  readonly write: (org: OrgFixture) => Promise<void>;
}

const CASES: Record<string, ListCase> = {
  users: {
    path: '/users',
    table: 'users',
    write: async (org) => {
      await org.pool.query(
        "insert into control.users (id, organisation_id, email, role) values ($1, $2, $3, 'member')",
        [randomUUID(), org.organisationId, `${randomUUID()}@example.com`],
      );
    },
  },
  workspaces: {
    path: '/workspaces',
    table: 'workspaces',
    write: async (org) => {
      await org.workspace(`ws-${randomUUID().slice(0, 8)}`);
    },
  },
  'api-keys': {
    path: '/api-keys',
    table: 'api_keys',
    write: async (org) => {
      await org.apiKey({ type: 'admin' });
    },
  },
  'user-invites': {
    path: '/user-invites',
    table: 'user_invites',
    write: async (org) => {
      await org.pool.query(
        `insert into control.user_invites (id, organisation_id, email, role, workspaces, token_hash, expires_at)
         values ($1, $2, $3, 'member', '[]', $4, now() + interval '1 day')`,
        [randomUUID(), org.organisationId, `${randomUUID()}@example.com`, randomUUID()],
      );
    },
  },
  alerts: {
    path: '/alerts',
    table: 'alerts',
    write: (org) =>
      insertAlert(org.pool, {
        organisationId: org.organisationId,
        subjectKind: 'workspace',
        subjectId: randomUUID(),
        kind: 'threshold',
        group: {},
      }),
  },
};

/** What a page of `limit` rows from `offset` holds when the list has `total` rows. */
const expectedRows = (total: number, limit: number, offset: number) =>
  Math.max(0, Math.min(limit, total - offset));

describe('admin lists read a page and its total in one snapshot', () => {
  test.for(Object.entries(CASES))(
    '%s: the page agrees with its total while a row is committed between the two reads',
    async ([, list], { org }) => {
      // One row already there, so the page is not trivially empty.
      await list.write(org);
      const before = await org.call('get', `${list.path}?page_size=0`);
      expect(before.status).toBe(200);
      // The whole list on one page, then a page just past its end (its row only exists in a later
      // snapshot): two reads give a longer total than the page on both.
      for (const [limit, page] of [
        [500, 0],
        [1, before.body.total + 1],
      ] as const) {
        const hold = holdCountUntilWritten(list.table, () => list.write(org));
        let response: Awaited<ReturnType<OrgFixture['call']>>;
        try {
          response = await org.call('get', `${list.path}?page_size=${limit}&current_page=${page}`);
        } finally {
          hold.release();
        }
        expect(hold.fired()).toBe(true);
        expect(response.status, JSON.stringify(response.body)).toBe(200);
        const { data, total } = response.body as { data: unknown[]; total: number };
        expect(data.length, `a page of ${limit} from ${limit * page} with total ${total}`).toBe(
          expectedRows(total, limit, limit * page),
        );
        // The row written meanwhile is one the list shows: the hook made a real difference.
        const after = await org.call('get', `${list.path}?page_size=0`);
        expect(after.body.total).toBe(total + 1);
      }
    },
  );
});
