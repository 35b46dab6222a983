import { describe, expect, test } from 'vitest';
import {
  createBody,
  draftOf,
  emptyDraft,
  entityGroupKey,
  formHasField,
  localFromIso,
  numberOrText,
  policyFieldOf,
  updateBody,
} from './policies-body.js';

describe('the policy form as request bodies', () => {
  test('a usage-limits policy: conditions, group_by, limit, threshold and a reset every N days', () => {
    const draft = emptyDraft('usage');
    draft.name = 'Budget';
    draft.workspace = 'research';
    draft.conditions = [
      { key: 'workspace_id', value: ' research ' },
      { key: 'metadata.env', value: 'prod' },
    ];
    draft.groupBy = ['api_key', 'model'];
    draft.usage = {
      ...draft.usage,
      type: 'tokens',
      creditLimit: '1000',
      alertThreshold: '800',
      reset: 'days',
      resetDays: '7',
    };
    expect(createBody(draft)).toEqual({
      name: 'Budget',
      workspace_id: 'research',
      conditions: [
        { key: 'workspace_id', value: 'research' },
        { key: 'metadata.env', value: 'prod' },
      ],
      group_by: [{ key: 'api_key' }, { key: 'model' }],
      type: 'tokens',
      credit_limit: 1000,
      alert_threshold: 800,
      periodic_reset_days: 7,
    });
  });

  test('no workspace chosen sends none (the key decides); no threshold and no reset send nothing', () => {
    const draft = emptyDraft('usage');
    draft.usage.creditLimit = '2.5';
    const body = createBody(draft);
    expect(body).not.toHaveProperty('workspace_id');
    expect(body).not.toHaveProperty('alert_threshold');
    expect(body).not.toHaveProperty('periodic_reset');
    expect(body.credit_limit).toBe(2.5);
  });

  test('a value that is not a number is sent as typed, for the API to name the field', () => {
    const draft = emptyDraft('rate');
    draft.rate.value = 'lots';
    expect(createBody(draft)).toMatchObject({ type: 'requests', unit: 'rpm', value: 'lots' });
    expect(numberOrText(' 12 ')).toBe(12);
    expect(numberOrText('')).toBe('');
  });

  test('an update sends only what may change, clearing emptied optional fields and the other reset style', () => {
    const draft = emptyDraft('usage');
    draft.name = 'B';
    draft.usage = { ...draft.usage, creditLimit: '10', reset: 'monthly' };
    expect(updateBody(draft)).toEqual({
      name: 'B',
      credit_limit: 10,
      alert_threshold: null,
      periodic_reset: 'monthly',
      periodic_reset_days: null,
      next_usage_reset_at: null,
    });
    draft.usage.reset = 'none';
    expect(updateBody(draft)).toEqual({
      name: 'B',
      credit_limit: 10,
      alert_threshold: null,
      periodic_reset: null,
      periodic_reset_days: null,
    });
    const rate = emptyDraft('rate');
    rate.name = 'R';
    rate.rate = { type: 'tokens', unit: 'rph', value: '5' };
    expect(updateBody(rate)).toEqual({ name: 'R', unit: 'rph', value: 5 });
  });

  test('a stored policy round-trips through the form', () => {
    const stored = {
      name: 'P',
      workspace_id: null,
      conditions: [{ key: 'model', value: 'gpt-4o' }],
      group_by: [{ key: 'api_key' }],
      type: 'cost',
      credit_limit: 250.5,
      alert_threshold: 200,
      periodic_reset: null,
      periodic_reset_days: 30,
      next_usage_reset_at: null,
    };
    const draft = draftOf('usage', stored);
    expect(draft.usage).toMatchObject({
      creditLimit: '250.5',
      alertThreshold: '200',
      reset: 'days',
      resetDays: '30',
    });
    expect(updateBody(draft)).toMatchObject({
      credit_limit: 250.5,
      alert_threshold: 200,
      periodic_reset_days: 30,
    });
    expect(localFromIso('not a date')).toBe('');
  });

  test('an error param the form has a field for is shown there, any other in the banner', () => {
    const draft = emptyDraft('usage');
    expect(formHasField(draft, 'credit_limit')).toBe(true);
    expect(formHasField(draft, 'conditions.0.key')).toBe(true);
    expect(formHasField(draft, 'conditions.0.value')).toBe(true);
    expect(formHasField(draft, 'conditions.1.key')).toBe(false);
    expect(formHasField(draft, 'group_by.0.key')).toBe(true);
    expect(formHasField(draft, 'group_by.0.value')).toBe(false);
    expect(formHasField(draft, 'periodic_reset_days')).toBe(false);
    expect(formHasField(draft, 'next_usage_reset_at')).toBe(false);
    expect(formHasField(draft, 'value')).toBe(false);
    expect(formHasField(draft, 'organisation_id')).toBe(false);
    expect(formHasField(emptyDraft('rate'), 'value')).toBe(true);
  });

  test('params and entity keys', () => {
    expect(policyFieldOf('body.conditions.0.key')).toBe('conditions.0.key');
    expect(policyFieldOf('body.credit_limit')).toBe('credit_limit');
    expect(policyFieldOf('path.usageLimitsPolicyId')).toBeUndefined();
    expect(entityGroupKey('api-key')).toBe('api_key');
    expect(entityGroupKey('workspace')).toBe('workspace_id');
    expect(entityGroupKey('user')).toBe('metadata._user');
  });
});
