import { describe, expect, it } from 'vitest';
import { budgetKeyPrefix, counterTag, entityBudgetKey } from './counter-keys.js';

describe('counter keys', () => {
  it('tag an organisation (one Redis Cluster slot) and name an entity budget by scope, measure and period', () => {
    expect(counterTag('org-1')).toBe('lim:{org-1}');
    expect(budgetKeyPrefix('org-1', 'iw:int-1:ws-1', 'cost')).toBe('lim:{org-1}:u:iw:int-1:ws-1:cost:');
    expect(entityBudgetKey('org-1', 'api_key', 'key-1', 'tokens', 1_700_000_000_000)).toBe(
      'lim:{org-1}:u:api_key:key-1:tokens:1700000000000',
    );
  });
});
