// The snapshot view target admissions read: only policies whose conditions name `provider` or
// `virtual_key` (the others are the request-level admission's), the prices, and one view per snapshot.
import { EntityKind } from '@aigw/proto';
import { describe, expect, it } from 'vitest';
import { gpt4oPrice, ORG, ratePolicy, snapshotOf, usagePolicy } from '../limits/limits.test-support.js';
import { targetPolicyView } from './target-limits.js';

describe('targetPolicyView', () => {
  const byProvider = ratePolicy({ conditions: [{ key: 'provider', value: 'a' }] });
  const byVirtualKey = usagePolicy({ conditions: [{ key: 'virtual_key', value: '*' }] });
  const byKey = ratePolicy({ conditions: [{ key: 'api_key', value: '*' }], groupBy: [{ key: 'provider' }] });
  const mixed = usagePolicy({
    conditions: [
      { key: 'workspace_id', value: '*' },
      { key: 'provider', value: 'b' },
    ],
  });
  const price = gpt4oPrice();

  it('keeps the policies with a provider or virtual_key condition, and the prices', () => {
    const view = targetPolicyView(snapshotOf(byProvider, byVirtualKey, byKey, mixed, price), ORG);
    expect(view.policies).toBe(true);
    const ids = (kind: EntityKind, org: string) => view.snapshot.ofOrganisation(kind, org).map((e) => e.id);
    expect(ids(EntityKind.RATE_LIMIT_POLICY, ORG)).toEqual([byProvider.id]);
    expect(ids(EntityKind.USAGE_LIMIT_POLICY, ORG)).toEqual([byVirtualKey.id, mixed.id]);
    expect(ids(EntityKind.MODEL_PRICING, '')).toEqual([price.id]);
  });

  it('says when no target policy exists, and is built once per snapshot', () => {
    const snapshot = snapshotOf(byKey, price);
    const view = targetPolicyView(snapshot, ORG);
    expect(view.policies).toBe(false);
    expect(targetPolicyView(snapshot, ORG)).toBe(view);
    const next = snapshot.withChanges([{ ...byProvider, version: 2 }], 2);
    const changed = targetPolicyView(next, ORG);
    expect(changed).not.toBe(view);
    expect(changed.policies).toBe(true);
  });
});
