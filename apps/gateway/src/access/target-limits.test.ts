// The snapshot views of config requests: target admissions read only the policies that depend on
// the target (a `provider`, `virtual_key` or `model` condition, or grouped by `model`), the request's
// admission all the others, both with the prices, one pair of views per snapshot.
import { EntityKind } from '@aigw/proto';
import { describe, expect, it } from 'vitest';
import { gpt4oPrice, ORG, ratePolicy, snapshotOf, usagePolicy } from '../limits/limits.test-support.js';
import { configRequestView, targetPolicyView } from './target-limits.js';

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

  it('gives the policies on the model to the targets, and every other one to the request', () => {
    const byModel = usagePolicy({ conditions: [{ key: 'model', value: 'gpt-4o' }] });
    const perModel = ratePolicy({
      conditions: [{ key: 'api_key', value: '*' }],
      groupBy: [{ key: 'model' }],
    });
    const snapshot = snapshotOf(byProvider, byKey, byModel, perModel, mixed, price);
    const ids = (view: typeof snapshot, kind: EntityKind) => view.ofOrganisation(kind, ORG).map((e) => e.id);
    const target = targetPolicyView(snapshot, ORG).snapshot;
    expect(ids(target, EntityKind.RATE_LIMIT_POLICY)).toEqual([byProvider.id, perModel.id]);
    expect(ids(target, EntityKind.USAGE_LIMIT_POLICY)).toEqual([byModel.id, mixed.id]);
    const request = configRequestView(snapshot, ORG);
    expect(ids(request, EntityKind.RATE_LIMIT_POLICY)).toEqual([byKey.id]);
    expect(ids(request, EntityKind.USAGE_LIMIT_POLICY)).toEqual([]);
    expect(request.ofOrganisation(EntityKind.MODEL_PRICING, '').map((e) => e.id)).toEqual([price.id]);
    expect(configRequestView(snapshot, ORG)).toBe(request);
  });

  it('says when no target policy exists, and is built once per snapshot', () => {
    const snapshot = snapshotOf(byKey, price);
    const view = targetPolicyView(snapshot, ORG);
    expect(view.policies).toBe(false);
    expect(configRequestView(snapshot, ORG)).toBe(snapshot);
    expect(targetPolicyView(snapshot, ORG)).toBe(view);
    const next = snapshot.withChanges([{ ...byProvider, version: 2 }], 2);
    const changed = targetPolicyView(next, ORG);
    expect(changed).not.toBe(view);
    expect(changed.policies).toBe(true);
  });
});
