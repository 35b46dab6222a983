// Cost estimates read the price of the snapshot they are given: matched prices are remembered per
// snapshot, so a price edit (a new snapshot) applies to the next request.
import { type Entity, ModelPricing } from '@aigw/proto';
import { describe, expect, it } from 'vitest';
import { estimateCost } from './charges.js';
import { gpt4oPrice, snapshotOf, subject } from './limits.test-support.js';

function repriced(price: Entity, inputMicrosPerMtok: number): Entity {
  const value = ModelPricing.fromPartial({
    ...(price.body?.$case === 'modelPricing' ? price.body.value : {}),
    inputMicrosPerMtok,
  });
  return { ...price, version: price.version + 1, body: { $case: 'modelPricing', value } };
}

describe('estimateCost', () => {
  it('prices input and output tokens from the snapshot, the same on a repeated call', () => {
    const snapshot = snapshotOf(gpt4oPrice());
    // 1M input at 2.5 USD + 1M output at 10 USD, in micro-USD.
    expect(estimateCost(snapshot, subject(), 1_000_000, 1_000_000)).toBe(12_500_000);
    expect(estimateCost(snapshot, subject(), 1_000_000, 0)).toBe(2_500_000);
  });

  it('uses the new price as soon as a snapshot carries it', () => {
    const price = gpt4oPrice();
    const before = snapshotOf(price);
    expect(estimateCost(before, subject(), 1_000_000, 0)).toBe(2_500_000);
    const after = before.withChanges([repriced(price, 5_000_000)]);
    expect(estimateCost(after, subject(), 1_000_000, 0)).toBe(5_000_000);
    expect(estimateCost(before, subject(), 1_000_000, 0)).toBe(2_500_000);
  });

  it('costs nothing for a model without a price', () => {
    expect(estimateCost(snapshotOf(gpt4oPrice()), subject({ model: 'unknown-model' }), 1000, 1000)).toBe(0);
  });
});
