import { describe, expect, test } from 'vitest';
import { parseUserFilter } from './scim-filter.js';

describe('parseUserFilter', () => {
  test('eq on userName (lowercased), externalId (as given) and id, joined by and', () => {
    expect(parseUserFilter('userName eq "Jane@Example.com"')).toEqual({ userName: 'jane@example.com' });
    expect(parseUserFilter('externalId eq "00uAbC"')).toEqual({ externalId: '00uAbC' });
    expect(parseUserFilter('USERNAME EQ "a@b.c" and externalId eq "x"')).toEqual({
      userName: 'a@b.c',
      externalId: 'x',
    });
    expect(parseUserFilter('urn:ietf:params:scim:schemas:core:2.0:User:userName eq "a@b.c"')).toEqual({
      userName: 'a@b.c',
    });
    expect(parseUserFilter('id eq "1" and id eq "1"')).toEqual({ id: '1' });
  });

  test('two values for one attribute match nothing', () => {
    expect(parseUserFilter('userName eq "a@b.c" and userName eq "d@e.f"')).toEqual({ nothing: true });
  });

  test.each([
    'userName sw "a"',
    'userName co "a"',
    'userName ne "a"',
    'userName pr',
    'userName eq "a" or userName eq "b"',
    'not (userName eq "a")',
    'emails[type eq "work"].value eq "a"',
    'name.givenName eq "a"',
    'active eq true',
    'userName eq 1',
    'userName eq',
    '',
    '((',
  ])('refuses %j as 400 invalidFilter', (filter) => {
    expect(() => parseUserFilter(filter)).toThrow(
      expect.objectContaining({ status: 400, type: 'scim_error', code: 'invalidFilter' }),
    );
  });
});
