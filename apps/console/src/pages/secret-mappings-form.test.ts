import { describe, expect, it } from 'vitest';
import { credentialShapes } from './integrations-form.js';
import {
  changedMappings,
  mappableFields,
  mappingProblem,
  mappingRows,
  mappingsBody,
  newMappingRow,
  referenceLabel,
  rowsFor,
} from './secret-mappings-form.js';

const REF = '5b0e7d1c-8a4f-4c2e-9d61-3f0a2b7c9e10';

describe('secret mapping rows', () => {
  it('offers the single-secret fields of a shape only', () => {
    const azure = credentialShapes('azure-openai');
    expect(mappableFields(azure[0]?.fields ?? []).map((f) => f.name)).toEqual(['api_key']);
    // Entra ID: client id and tenant id are typed, the client secret may come from a reference.
    expect(mappableFields(azure[1]?.fields ?? []).map((f) => f.name)).toEqual(['client_secret']);
    expect(mappableFields(credentialShapes('bedrock')[0]?.fields ?? []).map((f) => f.name)).toEqual([
      'aws_access_key_id',
      'aws_secret_access_key',
      'aws_session_token',
    ]);
    // A service account key file is stored, never mapped.
    expect(mappableFields(credentialShapes('vertex-ai')[0]?.fields ?? [])).toEqual([]);
  });

  it('adds a row for the first field not mapped yet, none when all are', () => {
    const fields = credentialShapes('bedrock')[0]?.fields ?? [];
    const first = newMappingRow([], fields);
    expect(first).toEqual({ field: 'aws_access_key_id', reference: '', key: '' });
    const second = newMappingRow([first!], fields);
    expect(second?.field).toBe('aws_secret_access_key');
    const openai = credentialShapes('openai')[0]?.fields ?? [];
    expect(newMappingRow([{ field: 'api_key', reference: REF, key: '' }], openai)).toBeUndefined();
  });

  it('keeps the rows of the fields given (a shape left behind drops its rows)', () => {
    const rows = [
      { field: 'api_key', reference: REF, key: '' },
      { field: 'client_secret', reference: REF, key: 'secret' },
    ];
    expect(rowsFor(rows, credentialShapes('azure-openai')[1]?.fields ?? [])).toEqual([rows[1]]);
  });

  it('refuses a row without a reference and a field mapped twice', () => {
    expect(mappingProblem([{ field: 'api_key', reference: ' ', key: '' }])).toBe(
      'Secret mappings: choose the secret reference for api_key.',
    );
    expect(
      mappingProblem([
        { field: 'api_key', reference: REF, key: '' },
        { field: 'api_key', reference: 'team-openai', key: '' },
      ]),
    ).toBe('Secret mappings: api_key is mapped twice.');
    expect(mappingProblem([{ field: 'api_key', reference: 'team-openai', key: 'api_key' }])).toBeUndefined();
  });

  it('builds the entries: trimmed, the key only when given', () => {
    expect(
      mappingsBody([
        { field: 'api_key', reference: ' team-openai ', key: ' api_key ' },
        { field: 'client_secret', reference: REF, key: '' },
      ]),
    ).toEqual([
      { field: 'api_key', secret_reference_id: 'team-openai', key: 'api_key' },
      { field: 'client_secret', secret_reference_id: REF },
    ]);
  });

  it('sends the mappings only when they differ from the stored ones; [] when all were removed', () => {
    const stored = [{ field: 'api_key', secret_reference_id: REF, key: 'api_key' }];
    expect(changedMappings(stored, mappingRows(stored))).toBeUndefined();
    expect(changedMappings([], [])).toBeUndefined();
    expect(changedMappings(stored, [])).toEqual([]);
    expect(changedMappings(stored, [{ field: 'api_key', reference: REF, key: 'other' }])).toEqual([
      { field: 'api_key', secret_reference_id: REF, key: 'other' },
    ]);
    expect(changedMappings([], [{ field: 'api_key', reference: 'team-openai', key: '' }])).toEqual([
      { field: 'api_key', secret_reference_id: 'team-openai' },
    ]);
    // A stored null key reads as an empty key in the form, and is unchanged.
    const keyless = [{ field: 'api_key', secret_reference_id: REF, key: null }];
    expect(mappingRows(keyless)).toEqual([{ field: 'api_key', reference: REF, key: '' }]);
    expect(changedMappings(keyless, mappingRows(keyless))).toBeUndefined();
  });

  it('names a reference by its listed name and slug, else as stored', () => {
    const listed = [{ id: REF, name: 'Team OpenAI', slug: 'team-openai' }];
    expect(referenceLabel(REF, listed)).toBe('Team OpenAI (team-openai)');
    expect(referenceLabel('team-openai', listed)).toBe('Team OpenAI (team-openai)');
    expect(referenceLabel(REF, undefined)).toBe(REF);
  });
});
