// If-Match parsing and strong comparison, and the route table: every admin PUT/PATCH/DELETE names the
// versioned entity it writes or is a listed exemption, so a new route cannot miss conditional writes.
import { describe, expect, it } from 'vitest';
import { routes } from '../routes.js';
import { assertIfMatch, parseIfMatch } from './conditional.js';
import type { RouteDefinition } from './route.js';

describe('parseIfMatch', () => {
  it.each([
    ['"3"', { any: false, strong: ['3'], weak: [] }],
    ['*', { any: true }],
    ['  *  ', { any: true }],
    ['"3", "4"', { any: false, strong: ['3', '4'], weak: [] }],
    ['"3",W/"4" ,, "5",', { any: false, strong: ['3', '5'], weak: ['4'] }],
    ['W/"3"', { any: false, strong: [], weak: ['3'] }],
    // An entity tag may hold a comma: it is one tag, not two.
    ['"a,b"', { any: false, strong: ['a,b'], weak: [] }],
    ['""', { any: false, strong: [''], weak: [] }],
  ])('%s', (header, parsed) => {
    expect(parseIfMatch(header)).toEqual(parsed);
  });

  it('is undefined when the header is absent', () => {
    expect(parseIfMatch(undefined)).toBeUndefined();
  });

  it.each(['', ' ', '3', '"3', '3"', "'3'", 'w/"3"', '"3" "4"', '"3", 4', '*, "3"', '"3", *', '**', '"a b"'])(
    'refuses %j as 400 AB01 naming the header',
    (header) => {
      expect(() => parseIfMatch(header)).toThrow(
        expect.objectContaining({ status: 400, code: 'AB01', param: 'header.if-match' }),
      );
    },
  );
});

describe('assertIfMatch (strong comparison)', () => {
  const holds = (header: string, version: string | undefined) => {
    const condition = parseIfMatch(header);
    if (!condition) throw new Error('no condition');
    try {
      assertIfMatch(condition, version, 'config');
      return true;
    } catch (err) {
      expect(err).toMatchObject({ status: 409, code: 'AB07', param: 'header.if-match' });
      return false;
    }
  };

  it('matches the version exactly, any of a list, and * for an entity that exists', () => {
    expect(holds('"3"', '3')).toBe(true);
    expect(holds('"2", "3"', '3')).toBe(true);
    expect(holds('*', '3')).toBe(true);
    expect(holds('"03"', '3')).toBe(false);
    expect(holds('"2"', '3')).toBe(false);
  });

  it('never matches a weak tag, nor anything when there is no entity', () => {
    expect(holds('W/"3"', '3')).toBe(false);
    expect(holds('W/"3", "3"', '3')).toBe(true);
    expect(holds('*', undefined)).toBe(false);
    expect(holds('"3"', undefined)).toBe(false);
  });

  it('says which version was expected and which is current', () => {
    const condition = parseIfMatch('"3"');
    if (!condition) throw new Error('no condition');
    expect(() => assertIfMatch(condition, '5', 'rate limits policy')).toThrow(
      'the rate limits policy changed since version 3 (now 5): read it again',
    );
  });
});

/** PUT/PATCH/DELETE routes with no versioned entity, each for its reason (on the route: `entity.exempt`). */
const EXEMPT = [
  'DELETE /user-invites/:inviteId',
  'PUT /workspaces/:workspaceId/members/:userId',
  'DELETE /workspaces/:workspaceId/members/:userId',
  'PUT /integrations/:integrationId/workspaces',
  'PUT /feedback/:feedbackId',
  'PUT /prompts/:promptId/makeDefault',
  'PUT /prompts/:promptId/labels/:label',
  'DELETE /prompts/:promptId/labels/:label',
  'PUT /prompt-partials/:promptId/makeDefault',
  'PUT /prompt-partials/:promptId/labels/:label',
  'DELETE /prompt-partials/:promptId/labels/:label',
  'PUT /collections/:collectionId',
  'DELETE /collections/:collectionId',
  'PUT /labels/:labelId',
  'DELETE /labels/:labelId',
  'PUT /mcp-servers/:mcpServerId/capabilities',
  'PUT /mcp-servers/:mcpServerId/user-access',
];

const name = (route: RouteDefinition) => `${route.method.toUpperCase()} ${route.path}`;
const writes = routes.filter((r) => r.method === 'put' || r.method === 'patch' || r.method === 'delete');
const tableOf = (route: RouteDefinition | undefined) =>
  route?.entity && 'table' in route.entity ? route.entity.table : undefined;

describe('the admin route table', () => {
  it('has every PUT/PATCH/DELETE name its versioned entity, or say why not and be listed here', () => {
    const undeclared = writes.filter((r) => r.entity === undefined).map(name);
    expect(undeclared, 'declare `entity: { table }` or `entity: { exempt: reason }`').toEqual([]);
    const exempt = writes.filter((r) => r.entity && 'exempt' in r.entity);
    expect(exempt.map(name).sort()).toEqual([...EXEMPT].sort());
    for (const route of exempt)
      expect((route.entity as { exempt: string }).exempt.length, name(route)).toBeGreaterThan(10);
  });

  it('covers the single-entity writes: 35 PUT/DELETE routes take If-Match', () => {
    const versioned = writes.filter((r) => tableOf(r) !== undefined);
    expect(versioned.length).toBeGreaterThanOrEqual(35);
    // Every one is audited, so a refused conditional write is recorded like any refused mutation.
    for (const route of versioned) expect(route.audit, name(route)).toBeDefined();
    // The single-entity writes whose path ends in an id all do, unless listed above.
    for (const route of writes.filter((r) => /\/:\w+$/.test(r.path) && !EXEMPT.includes(name(r))))
      expect(tableOf(route), name(route)).toBeDefined();
  });

  it('gives an ETag where If-Match is taken: the GET of the same path and the creation name the same table', () => {
    for (const write of writes.filter((r) => tableOf(r) !== undefined)) {
      const get = routes.find((r) => r.method === 'get' && r.path === write.path);
      expect(get, `GET ${write.path}`).toBeDefined();
      expect(tableOf(get), `GET ${write.path}`).toBe(tableOf(write));
      const collection = write.path.replace(/\/:\w+$/, '');
      const create = routes.find((r) => r.method === 'post' && r.path === collection);
      if (create && collection !== write.path)
        expect(tableOf(create), `POST ${collection}`).toBe(tableOf(write));
    }
  });
});
