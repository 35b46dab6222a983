// Managed provider options: the entity decides every host-forming option and the credentials; the
// client's option headers only fill in what cannot redirect the managed key elsewhere.
import { describe, expect, it } from 'vitest';
import { entityOptions, managedCloud } from './provider-options.js';

describe('entityOptions', () => {
  it("reads each provider type's options, the provider's over the integration's", () => {
    const azure = entityOptions(
      'azure-openai',
      { resource_name: 'int-res', api_version: '2024-10-21', custom_host: 'https://int.example' },
      { resource_name: 'prov-res' },
    );
    expect(azure.cloud).toEqual({ azure: { resourceName: 'prov-res', apiVersion: '2024-10-21' } });
    expect(azure.customHost).toBe('https://int.example');
    expect(entityOptions('vertex-ai', { project_id: 'p1', region: 'europe-west4' }).cloud).toEqual({
      vertex: { projectId: 'p1', region: 'europe-west4' },
    });
    expect(entityOptions('bedrock', { region: 'eu-west-1' }).cloud).toEqual({
      bedrock: { region: 'eu-west-1' },
    });
  });
});

describe('managedCloud', () => {
  const deployments = JSON.stringify([
    { deployment_id: 'dep-4o', model: 'gpt-4o' },
    { deployment_id: 'dep-mini', model: 'gpt-4o-mini', is_default: true, api_version: '2025-01-01' },
  ]);

  it('never takes a host-forming option or a credential from the client', () => {
    const entity = entityOptions('bedrock', { region: 'eu-west-1' });
    const cloud = managedCloud(
      entity,
      { bedrock: { accessKeyId: 'AKIAMANAGED', secretAccessKey: 'managed' } },
      { bedrock: { region: 'attacker-1', accessKeyId: 'AKIACLIENT', secretAccessKey: 'client' } },
      '',
    );
    expect(cloud.bedrock).toEqual({
      accessKeyId: 'AKIAMANAGED',
      secretAccessKey: 'managed',
      region: 'eu-west-1',
    });
    const azure = managedCloud(
      entityOptions('azure-openai', { resource_name: 'mine' }),
      {},
      { azure: { resourceName: 'attacker', deploymentId: 'd1', apiVersion: '2024-10-21' } },
      '',
    );
    expect(azure.azure).toEqual({ resourceName: 'mine', deploymentId: 'd1', apiVersion: '2024-10-21' });
    const vertex = managedCloud(
      entityOptions('vertex-ai', { region: 'europe-west4' }),
      {},
      { vertex: { region: 'attacker', projectId: 'p2', requestType: 'generateContent' } },
      '',
    );
    expect(vertex.vertex).toEqual({
      region: 'europe-west4',
      projectId: 'p2',
      requestType: 'generateContent',
    });
  });

  it('picks the Azure deployment serving the model, else the default one; a deployment header wins', () => {
    const entity = entityOptions('azure-openai', { resource_name: 'mine', deployments });
    expect(managedCloud(entity, {}, {}, 'gpt-4o').azure).toMatchObject({
      deploymentId: 'dep-4o',
      modelName: 'gpt-4o',
    });
    expect(managedCloud(entity, {}, {}, 'o1').azure).toMatchObject({
      deploymentId: 'dep-mini',
      apiVersion: '2025-01-01',
    });
    expect(
      managedCloud(entity, {}, { azure: { deploymentId: 'mine-2' } }, 'gpt-4o').azure?.deploymentId,
    ).toBe('mine-2');
  });
});
