// The condition vocabulary and how an entity's attributes satisfy a policy's conditions.
import { describe, expect, it } from 'vitest';
import { conditionsSchema, groupBySchema, isPolicyKey } from './policies.conditions.js';
import { satisfies } from './policies.entities.js';

describe('isPolicyKey', () => {
  it('accepts the vocabulary and metadata.<key>', () => {
    for (const key of [
      'api_key',
      'workspace_id',
      'organisation_id',
      'provider',
      'model',
      'config',
      'virtual_key',
    ])
      expect(isPolicyKey(key), key).toBe(true);
    for (const key of ['metadata._user', 'metadata.a', 'metadata.team-name.v2', `metadata.${'k'.repeat(64)}`])
      expect(isPolicyKey(key), key).toBe(true);
  });

  it('refuses anything else', () => {
    for (const key of [
      '',
      'user',
      'API_KEY',
      'metadata',
      'metadata.',
      'metadata.a b',
      'metadata.ü',
      `metadata.${'k'.repeat(65)}`,
      ' model',
    ])
      expect(isPolicyKey(key), key).toBe(false);
  });
});

describe('conditions and group_by schemas', () => {
  it('need at least one item and refuse duplicate keys', () => {
    expect(conditionsSchema.safeParse([]).success).toBe(false);
    expect(groupBySchema.safeParse([]).success).toBe(false);
    const twice = conditionsSchema.safeParse([
      { key: 'model', value: 'a' },
      { key: 'model', value: 'b' },
    ]);
    expect(twice.error?.issues[0]?.path).toEqual([1, 'key']);
  });

  it('api_key and organisation_id values are uuids or *', () => {
    const id = '0b1e7a4e-8c1b-4d5e-9f00-123456789abc';
    expect(conditionsSchema.safeParse([{ key: 'api_key', value: id }]).success).toBe(true);
    expect(conditionsSchema.safeParse([{ key: 'api_key', value: '*' }]).success).toBe(true);
    expect(conditionsSchema.safeParse([{ key: 'organisation_id', value: 'acme' }]).success).toBe(false);
    expect(conditionsSchema.safeParse([{ key: 'model', value: 'gpt-4o' }]).success).toBe(true);
  });
});

describe('satisfies', () => {
  const attributes = new Map<string, ReadonlySet<string>>([
    ['workspace_id', new Set(['w1'])],
    ['api_key', new Set(['k1', 'k2'])],
    ['metadata.team', new Set(['search'])],
  ]);
  const policy = (...conditions: [string, string][]) => ({
    conditions: conditions.map(([key, value]) => ({ key, value })),
  });

  it('needs every condition to hold; * needs a value to exist', () => {
    expect(satisfies(policy(['workspace_id', 'w1'], ['api_key', 'k2']), attributes)).toBe(true);
    expect(satisfies(policy(['workspace_id', 'w1'], ['api_key', 'k3']), attributes)).toBe(false);
    expect(satisfies(policy(['metadata.team', '*']), attributes)).toBe(true);
    expect(satisfies(policy(['metadata.env', '*']), attributes)).toBe(false);
    expect(satisfies(policy(['organisation_id', '*']), attributes)).toBe(false);
  });

  it('ignores request-only keys, which no entity can decide', () => {
    expect(satisfies(policy(['model', 'gpt-4o'], ['provider', 'openai']), attributes)).toBe(true);
    expect(satisfies(policy(['config', 'c'], ['virtual_key', 'v'], ['api_key', 'k9']), attributes)).toBe(
      false,
    );
  });
});
