import { AppError } from '@aigw/runtime';
import { describe, expect, it } from 'vitest';
import { CLOUD_HEADER, CLOUD_HEADERS, readCloudOptions } from './cloud-headers.js';

describe('readCloudOptions', () => {
  it('reads every documented header into its option', () => {
    const headers = Object.fromEntries(CLOUD_HEADERS.map((h) => [h.name.toLowerCase(), `v:${h.name}`]));
    expect(readCloudOptions(headers)).toEqual({
      azure: {
        resourceName: 'v:x-service-cloudA-resource-name',
        deploymentId: 'v:x-service-cloudA-deployment-id',
        apiVersion: 'v:x-service-cloudA-api-version',
        modelName: 'v:x-service-cloudA-model-name',
      },
      vertex: {
        projectId: 'v:x-service-cloudB-project-id',
        region: 'v:x-service-cloudB-region',
        requestType: 'v:x-service-cloudB-request-type',
      },
      bedrock: {
        accessKeyId: 'v:x-service-cloudC-access-key-id',
        secretAccessKey: 'v:x-service-cloudC-secret-access-key',
        sessionToken: 'v:x-service-cloudC-session-token',
        region: 'v:x-service-cloudC-region',
      },
      anthropicBeta: 'v:x-service-anthropic-beta',
      anthropicVersion: 'v:x-service-anthropic-version',
    });
  });

  it('matches names case-insensitively, as node lower-cases them on arrival', () => {
    expect(readCloudOptions({ 'x-service-cloudb-region': 'us-central1' })).toEqual({
      vertex: { region: 'us-central1' },
    });
  });

  it('leaves absent, empty and blank headers out, and trims values', () => {
    expect(readCloudOptions({})).toEqual({});
    expect(
      readCloudOptions({
        'x-service-clouda-resource-name': '',
        'x-service-cloudc-region': '   ',
        'x-service-anthropic-version': ' 2023-06-01 ',
      }),
    ).toEqual({ anthropicVersion: '2023-06-01' });
  });

  it('ignores look-alike names that are not in the table', () => {
    expect(
      readCloudOptions({ 'x-service-azure-resource-name': 'r', 'x-service-cloudd-region': 'x' }),
    ).toEqual({});
  });

  it('rejects a header sent as several values with invalid_header naming it', () => {
    let caught: unknown;
    try {
      readCloudOptions({ 'x-service-cloudc-region': ['us-east-1', 'eu-west-1'] });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect(caught).toMatchObject({ status: 400, code: 'invalid_header', param: CLOUD_HEADER.bedrockRegion });
  });
});

describe('CLOUD_HEADERS', () => {
  it('lists each header once, under the provider it configures', () => {
    const names = CLOUD_HEADERS.map((h) => h.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.sort()).toEqual(Object.values(CLOUD_HEADER).sort());
    for (const header of CLOUD_HEADERS) {
      const expected = header.name.startsWith('x-service-cloudA-')
        ? 'azure-openai'
        : header.name.startsWith('x-service-cloudB-')
          ? 'vertex-ai'
          : header.name.startsWith('x-service-cloudC-')
            ? 'bedrock'
            : 'anthropic';
      expect(header.provider, header.name).toBe(expected);
    }
  });
});
