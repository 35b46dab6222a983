// Hostile list filters: SQL injection, patterns, huge, binary and odd-shaped values in every query
// parameter of every list route give 400 AB01 or a 200 list they cannot widen, never a 500.
import { describe, expect } from 'vitest';
import type { ApiResponse } from '../../test/harness.js';
import { type CallerName, fingerprint, test, type World } from './access.test-support.js';

/**
 * How a parameter may answer a hostile value: `page` any page of the same list, `filter` an empty
 * list, `workspace` 404 AB08 (an unknown id or slug); all of them may be 400 AB01.
 */
type Kind = 'page' | 'filter' | 'workspace';

interface ListRoute {
  readonly route: string;
  path(world: World): string;
  readonly params: Readonly<Record<string, Kind>>;
  /** Strict query schemas refuse unknown parameters (400); the others ignore them. */
  readonly strict: boolean;
  readonly callers: readonly CallerName[];
}

const PAGE = { page_size: 'page', current_page: 'page' } as const;

const ROUTES: readonly ListRoute[] = [
  {
    route: 'GET /workspaces',
    path: () => '/workspaces',
    params: { ...PAGE, status: 'filter', name: 'filter' },
    strict: false,
    callers: ['owner key', 'service-A key'],
  },
  {
    route: 'GET /workspaces/:id/members',
    path: (w) => `/workspaces/${w.a.slug}/members`,
    params: { ...PAGE, role: 'filter' },
    strict: false,
    callers: ['owner key', 'member-A key'],
  },
  {
    route: 'GET /users',
    path: () => '/users',
    params: { ...PAGE, role: 'filter', status: 'filter', email: 'filter' },
    strict: false,
    callers: ['owner key', 'admin token'],
  },
  {
    route: 'GET /user-invites',
    path: () => '/user-invites',
    params: { ...PAGE, status: 'filter', email: 'filter' },
    strict: false,
    callers: ['admin key'],
  },
  {
    route: 'GET /api-keys',
    path: () => '/api-keys',
    params: { ...PAGE, workspace_id: 'workspace', type: 'filter', status: 'filter', user_id: 'filter' },
    strict: true,
    callers: ['owner key', 'service-A key', 'member-A key'],
  },
];

const enc = encodeURIComponent;

/** Raw (already URL-encoded) query values. */
const HOSTILE: readonly (readonly [label: string, raw: string])[] = [
  ['sql or', enc("' OR 1=1 --")],
  ['sql stacked', enc("'; DELETE FROM control.api_keys; --")],
  ['sql union', enc("x' UNION SELECT key_hash FROM control.api_keys --")],
  ['uuid then sql', enc("00000000-0000-0000-0000-000000000000' OR '1'='1")],
  ['percent', '%25'],
  ['like pattern', enc('%a%')],
  ['underscore', '_'],
  ['backslash', '%5C'],
  ['quotes', enc(`"'\``)],
  ['10k characters', 'a'.repeat(10_000)],
  ['unicode', enc('名前-😀-é')],
  ['bidi and zero-width', enc('\u202e\u200b\ufeff')],
  ['NUL', '%00'],
  ['NUL inside', 'a%00b'],
  ['control characters', '%01%1F%7F'],
  ['invalid UTF-8', '%FF%FE'],
  ['lone surrogate', '%ED%A0%80'],
  ['broken escape', '%E0%A4%A'],
  ['empty', ''],
  ['spaces', '%20%20'],
  ['plus', '+'],
  ['negative', '-1'],
  ['NaN', 'NaN'],
  ['1e309', '1e309'],
  ['-1e309', '-1e309'],
  ['Infinity', 'Infinity'],
  ['fraction', '1.5'],
  ['hex', '0x10'],
  ['huge integer', '99999999999999999999999'],
  ['__proto__', '__proto__'],
  ['constructor', 'constructor'],
  ['json object', enc('{"$ne":null}')],
  ['csv with junk', enc("active,' OR 1=1 --")],
  ['commas only', '%2C%2C%2C'],
];

/** Query strings naming a parameter more than once (an array). */
const ARRAYS = (param: string): readonly (readonly [string, string])[] => [
  ['array a&b', `${param}=a&${param}=b`],
  ['array of equal values', `${param}=1&${param}=1`],
  ['array of sql', `${param}=${enc("' OR 1=1 --")}&${param}=x`],
];

type Body = ApiResponse['body'];
const idsOf = (body: Body): string[] => (body?.data ?? []).map((item: { id: string }) => item.id);

const show = (body: Body) => String(JSON.stringify(body)).slice(0, 300);

/** Why `response` is not an acceptable answer for a parameter of this kind, or null. */
function refusal(
  kind: Kind | 'ignored' | 'refused',
  response: ApiResponse,
  baseline: Body,
  where: 'query' | 'path',
): string | null {
  const { status, body } = response;
  if (status === 400) {
    const error = body?.error;
    const ok =
      error?.code === 'AB01' &&
      error.type === 'invalid_request_error' &&
      typeof error.message === 'string' &&
      typeof error.param === 'string' &&
      (error.param === where || error.param.startsWith(`${where}.`));
    return ok ? null : `400 without the AB01 envelope: ${show(body)}`;
  }
  if (kind === 'refused') return `status ${status} where 400 was due`;
  if (status === 404 && kind === 'workspace')
    return body?.error?.code === 'AB08' ? null : `404 without AB08: ${show(body)}`;
  if (status !== 200 || kind === 'workspace') return `status ${status}: ${show(body)}`;
  if (body?.object !== 'list') return `not a list: ${show(body)}`;
  if (kind === 'filter')
    return body.total === 0 && body.data.length === 0 ? null : `a filter matched ${body.total} objects`;
  if (kind === 'page') {
    const known = new Set(idsOf(baseline));
    const inside = body.total === baseline.total && idsOf(body).every((id) => known.has(id));
    return inside ? null : `a page outside the list: total ${body.total} of ${baseline.total}`;
  }
  return JSON.stringify(body) === JSON.stringify(baseline) ? null : 'an ignored parameter changed the list';
}

async function probe(
  world: World,
  caller: CallerName,
  path: string,
  queries: readonly (readonly [string, string])[],
  kind: Kind | 'ignored' | 'refused',
): Promise<string[]> {
  const baseline = (await world.as(caller, 'get', path)).body;
  expect(baseline.total, 'the unfiltered list must not be empty').toBeGreaterThan(0);
  const failures: string[] = [];
  for (const [label, query] of queries) {
    const response = await world.as(caller, 'get', `${path}?${query}`);
    const why = refusal(kind, response, baseline, 'query');
    if (why) failures.push(`${label} (${query.slice(0, 60)}): ${why}`);
  }
  return failures;
}

const PARAM_ROWS = ROUTES.flatMap((r) =>
  r.callers.flatMap((caller) =>
    Object.entries(r.params).map(([param, kind]) => ({ route: r.route, caller, param, kind })),
  ),
);
const ROUTE_ROWS = ROUTES.flatMap((r) =>
  r.callers.map((caller) => ({ route: r.route, caller, strict: r.strict })),
);
const routeOf = (name: string) => ROUTES.find((r) => r.route === name) as ListRoute;

describe('hostile list filters', () => {
  test.for(PARAM_ROWS)('$route ?$param= as $caller', async ({ route, caller, param, kind }, { world }) => {
    const before = await fingerprint(world.pool);
    const queries = [...HOSTILE.map(([label, raw]) => [label, `${param}=${raw}`] as const), ...ARRAYS(param)];
    expect(await probe(world, caller, routeOf(route).path(world), queries, kind)).toEqual([]);
    expect(await fingerprint(world.pool)).toEqual(before);
  });

  test.for(ROUTE_ROWS)(
    '$route with unknown parameters as $caller',
    async ({ route, caller, strict }, { world }) => {
      const list = routeOf(route);
      const names = Object.keys(list.params);
      const queries: (readonly [string, string])[] = [
        ['__proto__', '__proto__=x'],
        ['__proto__ member', '__proto__[polluted]=yes'],
        ['constructor prototype', 'constructor[prototype][polluted]=yes'],
        ['prototype methods', 'toString=x&hasOwnProperty=y&valueOf=z'],
        ['unknown', `no_such_param=${enc("' OR 1=1 --")}`],
        ...names.map((name) => [`${name}[]`, `${name}[]=a`] as const),
        ...names.map((name) => [`${name}[$ne]`, `${name}[$ne]=x`] as const),
      ];
      const before = await fingerprint(world.pool);
      const kind = strict ? 'refused' : 'ignored';
      expect(await probe(world, caller, list.path(world), queries, kind)).toEqual([]);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(await fingerprint(world.pool)).toEqual(before);
    },
  );

  test.for([
    ['GET /workspaces/:id', (v: string, _w: World) => `/workspaces/${v}`],
    ['GET /workspaces/:id/members', (v: string, _w: World) => `/workspaces/${v}/members`],
    ['GET /workspaces/:id/members/:userId', (v: string, w: World) => `/workspaces/${w.a.id}/members/${v}`],
    ['GET /users/:id', (v: string, _w: World) => `/users/${v}`],
    ['GET /user-invites/:id', (v: string, _w: World) => `/user-invites/${v}`],
    ['GET /api-keys/:id', (v: string, _w: World) => `/api-keys/${v}`],
  ] as const)('%s with hostile ids', async ([, path], { world }) => {
    const failures: string[] = [];
    for (const [label, raw] of HOSTILE) {
      if (raw === '') continue;
      const response = await world.call('get', path(raw, world));
      const why = refusal('workspace', response, undefined, 'path');
      if (why) failures.push(`${label}: ${why}`);
    }
    expect(failures).toEqual([]);
  });
});
