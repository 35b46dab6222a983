import { describe, expect, it } from 'vitest';
import {
  createBody,
  credentialShapes,
  editForm,
  emptyIntegrationForm,
  type IntegrationLike,
  maskedEntries,
  optionFields,
  updateBody,
  workspaceChanges,
} from './integrations-form.js';

describe('integration form', () => {
  it('offers the credential shapes and options of each type', () => {
    expect(credentialShapes('openai').map((s) => s.fields.map((f) => f.name))).toEqual([['api_key']]);
    expect(credentialShapes('bedrock')[0]?.fields.map((f) => f.name)).toEqual([
      'aws_access_key_id',
      'aws_secret_access_key',
      'aws_session_token',
    ]);
    expect(optionFields('openai').map((f) => f.name)).toEqual(['custom_host']);
    expect(optionFields('bedrock').find((f) => f.name === 'region')?.required).toBe(true);
    expect(optionFields('openai-compatible')[0]?.required).toBe(true);
  });

  it('creates with the chosen shape only, typed options and workspace access', () => {
    const body = createBody({
      ...emptyIntegrationForm(),
      type: 'azure-openai',
      name: 'Azure',
      shape: 1,
      credentials: {
        api_key: 'left over from the other shape',
        client_id: 'c',
        client_secret: 's',
        tenant_id: 't',
      },
      options: { resource_name: 'acme', api_version: '', custom_host: '' },
      workspaces: ['w1'],
      allowedModels: 'gpt-4o, gpt-4o-mini\n',
    });
    expect(body).toEqual({
      name: 'Azure',
      ai_provider: 'azure-openai',
      credentials: { client_id: 'c', client_secret: 's', tenant_id: 't' },
      options: { resource_name: 'acme' },
      allow_all_workspaces: false,
      workspaces: [{ id: 'w1' }],
      allowed_models: ['gpt-4o', 'gpt-4o-mini'],
      create_default_provider: true,
    });
  });

  const before: IntegrationLike = {
    name: 'OpenAI',
    slug: 'openai',
    description: '',
    ai_provider: 'openai',
    status: 'active',
    options: { custom_host: 'http://mock/v1' },
    allow_all_workspaces: false,
    allowed_models: [],
  };

  it('an untouched edit sends nothing, and never the masked credentials', () => {
    expect(updateBody(before, editForm(before, []))).toEqual({});
  });

  it('an edit sends what changed; typed credentials replace the old ones', () => {
    const form = {
      ...editForm(before, []),
      name: 'OpenAI 2',
      credentials: { api_key: 'sk-new' },
      options: {},
    };
    expect(updateBody(before, form)).toEqual({
      name: 'OpenAI 2',
      credentials: { api_key: 'sk-new' },
      options: {},
    });
  });

  it('workspace access changes: added ones enabled, removed ones disabled', () => {
    expect(workspaceChanges(['a', 'b'], ['b', 'c'])).toEqual([
      { id: 'c', enabled: true },
      { id: 'a', enabled: false },
    ]);
    expect(workspaceChanges(['a'], ['a'])).toBeUndefined();
  });

  it('shows masked credentials as the API returned them', () => {
    expect(maskedEntries({ api_key: '****wxyz', custom_headers: { 'x-org': '****ab12' } })).toEqual([
      ['api_key', '****wxyz'],
      ['custom_headers.x-org', '****ab12'],
    ]);
    expect(maskedEntries(null)).toEqual([]);
  });
});
