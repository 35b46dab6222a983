import { describe, expect, it } from 'vitest';
import {
  createBody,
  credentialShapes,
  credentialsBody,
  editForm,
  emptyIntegrationForm,
  type IntegrationLike,
  inferShape,
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
    credentials: { api_key: '****wxyz' },
    secret_mappings: [],
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

  it('creates with secret mappings; a mapped field is not sent as a typed credential', () => {
    const body = createBody({
      ...emptyIntegrationForm(),
      name: 'Vault OpenAI',
      credentials: { api_key: 'typed before mapping' },
      mappings: [{ field: 'api_key', reference: 'team-openai', key: 'api_key' }],
    });
    expect(body.credentials).toBeUndefined();
    expect(body.secret_mappings).toEqual([
      { field: 'api_key', secret_reference_id: 'team-openai', key: 'api_key' },
    ]);
    // Entra ID: the ids are typed, the client secret comes from the reference.
    const entra = {
      ...emptyIntegrationForm(),
      type: 'azure-openai' as const,
      shape: 1,
      credentials: { client_id: 'c', tenant_id: 't', client_secret: 'typed' },
      mappings: [
        { field: 'client_secret', reference: 'azure-secret', key: '' },
        // A row of the API-key shape left behind is not sent.
        { field: 'api_key', reference: 'team-openai', key: '' },
      ],
    };
    expect(credentialsBody(entra)).toEqual({ client_id: 'c', tenant_id: 't' });
    expect(createBody(entra).secret_mappings).toEqual([
      { field: 'client_secret', secret_reference_id: 'azure-secret' },
    ]);
  });

  it('an edit starts from the stored mappings and shape, and sends the mappings only when changed', () => {
    const ref = '5b0e7d1c-8a4f-4c2e-9d61-3f0a2b7c9e10';
    const mapped: IntegrationLike = {
      ...before,
      ai_provider: 'azure-openai',
      options: {},
      credentials: { client_id: '****', client_secret: '****abcd', tenant_id: '****' },
      secret_mappings: [{ field: 'client_secret', secret_reference_id: ref, key: null }],
    };
    const form = editForm(mapped, []);
    expect(form.shape).toBe(1);
    expect(form.mappings).toEqual([{ field: 'client_secret', reference: ref, key: '' }]);
    expect(updateBody(mapped, form)).toEqual({});
    expect(updateBody(mapped, { ...form, mappings: [] })).toEqual({ secret_mappings: [] });
    expect(
      updateBody(before, {
        ...editForm(before, []),
        mappings: [{ field: 'api_key', reference: ref, key: 'k' }],
      }),
    ).toEqual({
      secret_mappings: [{ field: 'api_key', secret_reference_id: ref, key: 'k' }],
    });
  });

  it('infers the credential shape from stored names, the usual one when none matches', () => {
    expect(inferShape('bedrock', ['api_key'])).toBe(1);
    expect(inferShape('bedrock', ['aws_access_key_id', 'aws_secret_access_key'])).toBe(0);
    expect(inferShape('openai', [])).toBe(0);
    expect(inferShape('openai-compatible', ['custom_headers'])).toBe(0);
  });
});
