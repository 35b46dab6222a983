import { describe, expect, it } from 'vitest';
import { ENTITY_KINDS } from './entity-kinds.js';
import { EntityKind } from './gen/aigw/v1/entities.js';
import {
  CHANGES_SUBJECT_WILDCARD,
  changeSubject,
  entityKindFromSubject,
  isSupportedSchemaVersion,
  SCHEMA_VERSION,
  STREAMS,
} from './nats-subjects.js';

describe('change subjects', () => {
  it('names the kind in lower snake case under aigw.changes.v1', () => {
    expect(changeSubject(EntityKind.API_KEY)).toBe('aigw.changes.v1.api_key');
    expect(changeSubject(EntityKind.RATE_LIMIT_POLICY)).toBe('aigw.changes.v1.rate_limit_policy');
  });

  it('maps every concrete kind to a distinct subject and back', () => {
    const subjects = ENTITY_KINDS.map(changeSubject);
    expect(new Set(subjects).size).toBe(ENTITY_KINDS.length);
    expect(subjects.map(entityKindFromSubject)).toEqual(ENTITY_KINDS);
  });

  it('refuses kinds that have no subject', () => {
    expect(() => changeSubject(EntityKind.UNSPECIFIED)).toThrow(RangeError);
    expect(() => changeSubject(EntityKind.UNRECOGNIZED)).toThrow(RangeError);
    expect(() => changeSubject(99 as EntityKind)).toThrow(RangeError);
  });

  it('returns undefined for subjects that are not change subjects', () => {
    for (const subject of [
      'aigw.changes.v1.unspecified',
      'aigw.changes.v1.unrecognized',
      'aigw.changes.v1.API_KEY',
      'aigw.changes.v1.nope',
      'aigw.changes.v2.api_key',
      'aigw.requests.v1',
    ]) {
      expect(entityKindFromSubject(subject), subject).toBeUndefined();
    }
  });
});

describe('streams', () => {
  it('declares one stream per payload with the documented names', () => {
    expect(STREAMS).toEqual({
      requests: { name: 'AIGW_REQUESTS', subjects: ['aigw.requests.v1'] },
      changes: { name: 'AIGW_CHANGES', subjects: ['aigw.changes.v1.*'] },
      audit: { name: 'AIGW_AUDIT', subjects: ['aigw.audit.v1'] },
      alerts: { name: 'AIGW_ALERTS', subjects: ['aigw.alerts.v1'] },
    });
    expect(CHANGES_SUBJECT_WILDCARD).toBe('aigw.changes.v1.*');
    expect(Object.isFrozen(STREAMS.changes.subjects)).toBe(true);
  });
});

describe('schema versions', () => {
  it('accepts versions from 1 up to the current one only', () => {
    expect(SCHEMA_VERSION).toBe(1);
    expect(isSupportedSchemaVersion(1)).toBe(true);
    expect(isSupportedSchemaVersion(0)).toBe(false);
    expect(isSupportedSchemaVersion(SCHEMA_VERSION + 1)).toBe(false);
    expect(isSupportedSchemaVersion(1.5)).toBe(false);
  });
});
