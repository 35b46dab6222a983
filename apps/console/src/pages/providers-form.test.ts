import { describe, expect, it } from 'vitest';
import {
  createProviderBody,
  emptyProviderForm,
  type ProviderLike,
  providerEditForm,
  updateProviderBody,
} from './providers-form.js';

const provider: ProviderLike = {
  workspace_id: 'w1',
  integration_id: 'i1',
  name: 'OpenAI',
  slug: 'openai',
  note: '',
  status: 'active',
  allowed_models: [],
  rate_limits: [],
  usage_limits: [{ type: 'cost', credit_limit: 25, periodic_reset: 'monthly' }],
  expires_at: null,
};

describe('provider form', () => {
  it('creates with the workspace, integration and only the fields given', () => {
    expect(
      createProviderBody({ ...emptyProviderForm('w1'), integration: 'openai-prod', slug: 'gpt' }),
    ).toEqual({
      workspace_id: 'w1',
      integration_id: 'openai-prod',
      slug: 'gpt',
    });
    expect(createProviderBody({ ...emptyProviderForm(''), integration: 'x' })).toEqual({
      integration_id: 'x',
    });
  });

  it('an untouched edit sends nothing', () => {
    expect(updateProviderBody(provider, providerEditForm(provider))).toEqual({});
  });

  it('an edit sends what changed and clears removed limits', () => {
    const form = {
      ...providerEditForm(provider),
      status: 'disabled' as const,
      limits: { rate: [], usage: [], expiresAt: '' },
    };
    expect(updateProviderBody(provider, form)).toEqual({ status: 'disabled', usage_limits: null });
  });
});
