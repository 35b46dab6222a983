import { describe, expect, it } from 'vitest';
import { groupValue, matchesAll, valuesOf } from './conditions.js';
import type { LimitSubject } from './subject.js';

const subject: LimitSubject = {
  organisationId: 'org-1',
  workspaceId: 'ws-1',
  apiKeyId: 'key-1',
  provider: 'openai-prod',
  providerType: 'openai',
  model: 'gpt-4o',
  configId: 'cfg-1',
  configSlug: 'support-bot',
  virtualKeyId: '',
  metadata: { env: 'prod', _user: 'ada', empty: '' },
};

const c = (key: string, value: string) => ({ key, value });

describe('matchesAll', () => {
  it.each([
    ['api_key exact', [c('api_key', 'key-1')], true],
    ['api_key other', [c('api_key', 'key-2')], false],
    ['workspace_id', [c('workspace_id', 'ws-1')], true],
    ['organisation_id', [c('organisation_id', 'org-1')], true],
    ['provider slug', [c('provider', 'openai-prod')], true],
    ['provider type is not the slug', [c('provider', 'openai')], false],
    ['model', [c('model', 'gpt-4o')], true],
    ['model is exact, not a prefix', [c('model', 'gpt-4')], false],
    ['config by id', [c('config', 'cfg-1')], true],
    ['config by slug', [c('config', 'support-bot')], true],
    ['metadata value', [c('metadata.env', 'prod')], true],
    ['metadata other value', [c('metadata.env', 'dev')], false],
    ['metadata wildcard', [c('metadata._user', '*')], true],
    ['wildcard needs a value: absent metadata', [c('metadata.team', '*')], false],
    ['wildcard needs a value: empty metadata', [c('metadata.empty', '*')], false],
    ['wildcard needs a value: no virtual key', [c('virtual_key', '*')], false],
    ['metadata key from the prototype chain is absent', [c('metadata.constructor', '*')], false],
    ['bare metadata. is unknown', [c('metadata.', '*')], false],
    ['unknown key never matches', [c('user', '*')], false],
    ['all must hold', [c('workspace_id', 'ws-1'), c('metadata.env', 'prod'), c('model', '*')], true],
    ['one failing fails all', [c('workspace_id', 'ws-1'), c('metadata.env', 'dev')], false],
    ['no conditions applies to nothing', [], false],
  ])('%s', (_name, conditions, expected) => {
    expect(matchesAll(conditions, subject)).toBe(expected);
  });
});

describe('groupValue', () => {
  const g = (...keys: string[]) => keys.map((key) => ({ key }));
  it.each([
    [g('api_key'), 'api_key=key-1'],
    [g('workspace_id', 'model'), 'workspace_id=ws-1&model=gpt-4o'],
    [g('config'), 'config=cfg-1'],
    [g('metadata._user'), 'metadata._user=ada'],
    [g('metadata.team'), 'metadata.team='],
    [g('virtual_key'), 'virtual_key='],
  ])('%o -> %s', (groupBy, expected) => {
    expect(groupValue(groupBy, subject)).toBe(expected);
  });

  it('encodes separators inside values so groups cannot collide', () => {
    const tricky = { ...subject, metadata: { a: 'x&b=y', b: 'y' } };
    expect(groupValue(g('metadata.a'), tricky)).toBe('metadata.a=x%26b%3Dy');
    expect(groupValue(g('metadata.a'), tricky)).not.toBe(
      groupValue(g('metadata.a', 'metadata.b'), { ...tricky, metadata: { a: 'x', b: 'y' } }),
    );
  });
});

describe('valuesOf', () => {
  it('offers a virtual key by slug first, then id', () => {
    expect(valuesOf({ ...subject, virtualKeyId: 'vk-1', virtualKeySlug: 'legacy' }, 'virtual_key')).toEqual([
      'legacy',
      'vk-1',
    ]);
  });
});
