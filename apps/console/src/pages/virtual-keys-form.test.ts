import { describe, expect, it } from 'vitest';
import {
  credentialsReadOnlyReason,
  keyIsMapped,
  updateVirtualKeyBody,
  type VirtualKeyLike,
  virtualKeyEditForm,
  virtualKeyMappableFields,
} from './virtual-keys-form.js';

const REF = '5b0e7d1c-8a4f-4c2e-9d61-3f0a2b7c9e10';

const own: VirtualKeyLike = {
  name: 'My key',
  note: '',
  status: 'active',
  provider: 'openai',
  integration_id: null,
  credentials: { api_key: '****wxyz' },
  secret_mappings: [],
};

const fromIntegration: VirtualKeyLike = {
  ...own,
  name: 'From integration',
  integration_id: '8c1d2e3f-0000-4000-8000-000000000001',
  credentials: null,
};

describe('virtual key edit form', () => {
  it('starts from the record with an empty key', () => {
    expect(
      virtualKeyEditForm({
        ...own,
        secret_mappings: [{ field: 'api_key', secret_reference_id: REF, key: null }],
      }),
    ).toEqual({
      name: 'My key',
      note: '',
      status: 'active',
      key: '',
      mappings: [{ field: 'api_key', reference: REF, key: '' }],
    });
    expect(virtualKeyEditForm({ ...own, status: 'expired' }).status).toBe('active');
    expect(virtualKeyEditForm({ ...own, status: 'disabled' }).status).toBe('disabled');
  });

  it('an untouched edit sends nothing; an empty key keeps the stored one', () => {
    expect(updateVirtualKeyBody(own, virtualKeyEditForm(own))).toEqual({});
  });

  it('sends what changed: name, note, status, a typed key, new mappings', () => {
    const form = {
      ...virtualKeyEditForm(own),
      name: 'Renamed',
      note: 'for the batch jobs',
      status: 'disabled' as const,
      key: 'sk-new',
    };
    expect(updateVirtualKeyBody(own, form)).toEqual({
      name: 'Renamed',
      note: 'for the batch jobs',
      status: 'disabled',
      key: 'sk-new',
    });
    const mapped = {
      ...virtualKeyEditForm(own),
      key: 'typed before mapping',
      mappings: [{ field: 'api_key', reference: 'team-openai', key: 'api_key' }],
    };
    expect(keyIsMapped(mapped)).toBe(true);
    // The mapped api_key replaces the key: the typed one is not sent.
    expect(updateVirtualKeyBody(own, mapped)).toEqual({
      secret_mappings: [{ field: 'api_key', secret_reference_id: 'team-openai', key: 'api_key' }],
    });
  });

  it('removing every mapping sends [] (stop mapping, keep the last values)', () => {
    const vk = { ...own, secret_mappings: [{ field: 'api_key', secret_reference_id: REF, key: 'api_key' }] };
    expect(updateVirtualKeyBody(vk, { ...virtualKeyEditForm(vk), mappings: [] })).toEqual({
      secret_mappings: [],
    });
  });

  it('a key made from an integration: key and mappings are read-only and never sent (409 AB07)', () => {
    expect(credentialsReadOnlyReason(own)).toBeUndefined();
    expect(credentialsReadOnlyReason(fromIntegration)).toMatch(/integration/);
    const form = {
      ...virtualKeyEditForm(fromIntegration),
      name: 'Renamed',
      key: 'sk-typed',
      mappings: [{ field: 'api_key', reference: 'team-openai', key: '' }],
    };
    expect(updateVirtualKeyBody(fromIntegration, form)).toEqual({ name: 'Renamed' });
  });

  it('offers the mappable fields of the key credentials shape', () => {
    expect(virtualKeyMappableFields(own).map((f) => f.name)).toEqual(['api_key']);
    const bedrock: VirtualKeyLike = {
      ...own,
      provider: 'bedrock',
      credentials: { aws_access_key_id: '****ABCD', aws_secret_access_key: '****wxyz' },
    };
    expect(virtualKeyMappableFields(bedrock).map((f) => f.name)).toEqual([
      'aws_access_key_id',
      'aws_secret_access_key',
      'aws_session_token',
    ]);
    const bedrockApiKey: VirtualKeyLike = { ...bedrock, credentials: { api_key: '****wxyz' } };
    expect(virtualKeyMappableFields(bedrockApiKey).map((f) => f.name)).toEqual(['api_key']);
  });
});
