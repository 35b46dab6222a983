// Binary array parameters read back by Postgres exactly as written, NULLs included, and values a
// column type cannot hold refused as data errors (ingest sets such an event aside).
import { test } from '@aigw/testkit';
import { describe, expect } from 'vitest';
import { isDataError } from '../ingest/batch-processor.js';
import { type ArrayColumn, ArrayValueError, columnArrays, unnestParts } from './binary-array.js';

interface Row {
  u: string | null;
  t: string | null;
  j: string | null;
  b: boolean | null;
  s: number | null;
  i: number | null;
  l: number | string | null;
  f: number | null;
  y: Uint8Array | null;
  at: Date | string | null;
}

const COLUMNS: ArrayColumn<Row>[] = [
  { name: 'u', type: 'uuid', get: (r) => r.u },
  { name: 't', type: 'text', get: (r) => r.t },
  { name: 'j', type: 'jsonb', get: (r) => r.j },
  { name: 'b', type: 'bool', get: (r) => r.b },
  { name: 's', type: 'int2', get: (r) => r.s },
  { name: 'i', type: 'int4', get: (r) => r.i },
  { name: 'l', type: 'int8', get: (r) => r.l },
  { name: 'f', type: 'float8', get: (r) => r.f },
  { name: 'y', type: 'bytea', get: (r) => r.y },
  { name: 'at', type: 'timestamptz', get: (r) => r.at },
];

const parts = unnestParts(COLUMNS);
const SELECT = `select u::text, t, j::text, b, s, i, l::text, f, y, at from ${parts.from}`;

describe('binary arrays', () => {
  test('every element type round-trips through unnest, NULLs and awkward text included', async ({ pg }) => {
    const rows: Row[] = [
      {
        u: '0A1B2C3D-0000-4000-8000-00000000000F',
        t: 'comma, "quotes", back\\slash, {braces} NULL \u00e9\u4e2d\ud83d\ude00',
        j: '{"k":"v \\"q\\"","n":[1,2]}',
        b: true,
        s: -32768,
        i: 2147483647,
        l: -9007199254740991,
        f: 1.25e-7,
        y: new Uint8Array([0, 1, 92, 34, 255]),
        at: new Date('2026-11-27T00:00:00.123Z'),
      },
      {
        u: '00000000-0000-4000-8000-000000000000',
        t: '',
        j: '{}',
        b: false,
        s: 0,
        i: -1,
        l: '9007199254740991',
        f: -0.5,
        y: new Uint8Array(0),
        at: '1999-12-31T23:59:59.999Z',
      },
      { u: null, t: null, j: null, b: null, s: null, i: null, l: null, f: null, y: null, at: null },
    ];
    const { rows: back } = await pg.pool.query(SELECT, columnArrays(COLUMNS, rows));
    expect(back).toEqual([
      {
        u: '0a1b2c3d-0000-4000-8000-00000000000f',
        t: rows[0]?.t,
        j: '{"k": "v \\"q\\"", "n": [1, 2]}',
        b: true,
        s: -32768,
        i: 2147483647,
        l: '-9007199254740991',
        f: 1.25e-7,
        y: Buffer.from([0, 1, 92, 34, 255]),
        at: new Date('2026-11-27T00:00:00.123Z'),
      },
      {
        u: '00000000-0000-4000-8000-000000000000',
        t: '',
        j: '{}',
        b: false,
        s: 0,
        i: -1,
        l: '9007199254740991',
        f: -0.5,
        y: Buffer.alloc(0),
        at: new Date('1999-12-31T23:59:59.999Z'),
      },
      { u: null, t: null, j: null, b: null, s: null, i: null, l: null, f: null, y: null, at: null },
    ]);
  });

  test('a batch larger than the first guess of its size grows its buffer', async ({ pg }) => {
    const text = 'x'.repeat(10_000);
    const rows = Array.from({ length: 50 }, (_, n) => ({ n, text }));
    const columns: ArrayColumn<(typeof rows)[number]>[] = [
      { name: 'n', type: 'int4', get: (r) => r.n },
      { name: 'text', type: 'text', get: (r) => r.text },
    ];
    const { rows: back } = await pg.pool.query(
      `select sum(n)::int as n, sum(length(text))::int as chars from ${unnestParts(columns).from}`,
      columnArrays(columns, rows),
    );
    expect(back).toEqual([{ n: (49 * 50) / 2, chars: 500_000 }]);
  });

  test.each([
    ['int4', 2 ** 31],
    ['int2', 40_000],
    ['int8', 1.5],
    ['uuid', 'not-a-uuid'],
    ['timestamptz', 'not a date'],
  ] as const)('a %s value it cannot hold (%s) is a data error', (type, value) => {
    const columns: ArrayColumn<{ v: unknown }>[] = [{ name: 'v', type, get: (r) => r.v }];
    let error: unknown;
    try {
      columnArrays(columns, [{ v: value }]);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ArrayValueError);
    expect(isDataError(error)).toBe(true);
  });
});
