// The `filter` subset of GET /Users (RFC 7644 3.4.2.2): `eq` on userName, externalId or id, joined by
// `and`. That is what Okta and Entra ID send to find a user before creating it; anything else is
// refused as 400 invalidFilter rather than silently matching everything. Parsing is scim2-parse-filter's.
import { type Filter, parse } from 'scim2-parse-filter';
import { invalidFilter } from './scim-errors.js';

export interface UserMatch {
  /** Lowercase: userName is case-insensitive (RFC 7643 4.1.1) and e-mails are stored lowercase. */
  readonly userName?: string;
  /** Case-exact (RFC 7643 3.1). */
  readonly externalId?: string;
  readonly id?: string;
  /** Two different values for one attribute (`userName eq "a" and userName eq "b"`): no user matches. */
  readonly nothing?: true;
}

const ATTRIBUTES: Readonly<Record<string, 'userName' | 'externalId' | 'id'>> = {
  username: 'userName',
  externalid: 'externalId',
  id: 'id',
};

/** Attribute names may carry the core schema URN (`urn:...:User:userName`). */
function attributeOf(path: string): 'userName' | 'externalId' | 'id' | undefined {
  const bare = path.replace(/^urn:ietf:params:scim:schemas:core:2\.0:User:/i, '');
  return ATTRIBUTES[bare.toLowerCase()];
}

type Found = Map<'userName' | 'externalId' | 'id', string | null>;

function collect(filter: Filter, into: Found): void {
  if (filter.op === 'and') {
    for (const inner of filter.filters) collect(inner, into);
    return;
  }
  if (filter.op !== 'eq')
    throw invalidFilter(`unsupported filter operator "${filter.op}": only eq (joined by and) is supported`);
  const attribute = attributeOf(filter.attrPath);
  if (!attribute)
    throw invalidFilter(`unsupported filter attribute "${filter.attrPath}": use userName, externalId or id`);
  if (typeof filter.compValue !== 'string')
    throw invalidFilter(`${filter.attrPath} must be compared with a string`);
  const value = attribute === 'userName' ? filter.compValue.toLowerCase() : filter.compValue;
  const before = into.get(attribute);
  // `userName eq "a" and userName eq "b"` matches nothing: null says so.
  into.set(attribute, before === undefined || before === value ? value : null);
}

/** Parses `filter`; throws 400 invalidFilter for syntax errors and for anything outside the subset. */
export function parseUserFilter(filter: string): UserMatch {
  let ast: Filter;
  try {
    ast = parse(filter);
  } catch (err) {
    throw invalidFilter(`the filter could not be parsed: ${(err as Error).message}`);
  }
  const found: Found = new Map();
  collect(ast, found);
  if ([...found.values()].includes(null)) return { nothing: true };
  return Object.fromEntries(found) as UserMatch;
}
