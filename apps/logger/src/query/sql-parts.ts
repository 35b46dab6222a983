// Small builders for the query side's SQL: conditions are kysely `sql` fragments (values always bound
// as parameters, identifiers only from fixed lists), joined with `and`.
import { type RawBuilder, sql } from 'kysely';

export type Condition = RawBuilder<unknown>;

/** `a and b and ...`; `true` when empty. */
export function all(conditions: readonly Condition[]): Condition {
  return conditions.length === 0 ? sql`true` : sql`(${sql.join(conditions, sql` and `)})`;
}

/** A column of the aliased relation, e.g. `col('r', 'model')`. */
export function col(alias: string, name: string): RawBuilder<unknown> {
  return sql.ref(`${alias}.${name}`);
}

/** `column = any(values)`: one bound array parameter whatever the number of values. */
export function anyOf(
  column: RawBuilder<unknown>,
  values: readonly unknown[],
  type: 'text' | 'int',
): Condition {
  return type === 'text'
    ? sql`${column} = any(${[...values]}::text[])`
    : sql`${column} = any(${[...values]}::int[])`;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}
