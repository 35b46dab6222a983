// Legacy virtual keys end to end: their own API and shape over the provider records, own sealed
// credentials, the VIRTUAL_KEY entity pointing at its provider, isolation, scopes and audit.
import { randomUUID } from 'node:crypto';
import { AuditOutcome, EntityKind } from '@aigw/proto';
import { credentialsAad, openSecret, parseMasterKey } from '@aigw/secret-box';
import { describe, expect } from 'vitest';
import { MASTER_KEY, test } from '../../test/harness.js';
import { auditEvents } from '../../test/outbox-rows.js';
import {
  AWS_SECRET,
  createIntegration,
  entityChanges,
  expectError,
  expectMasked,
  expectSecretsNowhere,
  OPENAI_KEY,
  ROTATED_KEY,
  serviceKey,
  workspace,
} from '../integrations/integrations.test-support.js';

const VK_SCOPES = [
  'virtual_keys.create',
  'virtual_keys.read',
  'virtual_keys.list',
  'virtual_keys.update',
  'virtual_keys.delete',
];
const masterKey = parseMasterKey(MASTER_KEY);

function openProviderEnvelope(envelope: Buffer, id: string): unknown {
  return JSON.parse(openSecret(masterKey, envelope, credentialsAad('provider', id)).toString('utf8'));
}

describe('virtual keys', () => {
  test('create with a key: masked, sealed for the record, readable as a provider, announced twice', async ({
    cp,
    pg,
  }) => {
    const ws = await workspace(cp, 'Legacy');
    const key = await serviceKey(cp, ws.id, [...VK_SCOPES, 'providers.read']);
    const created = await cp.call('post', '/virtual-keys', {
      key,
      body: {
        name: 'My OpenAI key',
        provider: 'openai',
        key: OPENAI_KEY,
        note: 'old style',
        usage_limits: { credit_limit: 3 },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      object: 'virtual-key',
      workspace_id: ws.id,
      name: 'My OpenAI key',
      slug: 'my-openai-key',
      note: 'old style',
      provider: 'openai',
      provider_id: created.body.id,
      integration_id: null,
      key: '****wxyz',
      credentials: { api_key: '****wxyz' },
      status: 'active',
      usage_limits: [{ type: 'cost', credit_limit: 3, current_usage: 0 }],
    });
    expectMasked(created.body, OPENAI_KEY);

    const asProvider = await cp.call('get', `/providers/${created.body.id}`, { key });
    expect(asProvider.body).toMatchObject({
      object: 'provider',
      slug: 'my-openai-key',
      integration_id: null,
      credentials: { api_key: '****wxyz' },
    });

    const [provider, virtualKey] = await entityChanges(pg.pool, created.body.id);
    expect(provider?.kind).toBe(EntityKind.PROVIDER);
    const envelope =
      provider?.body?.$case === 'provider' ? provider.body.value.encryptedCredentials : Buffer.alloc(0);
    expect(openProviderEnvelope(envelope, created.body.id)).toEqual({ api_key: OPENAI_KEY });
    expect(() =>
      JSON.parse(openSecret(masterKey, envelope, credentialsAad('integration', created.body.id)).toString()),
    ).toThrow();
    expect(virtualKey).toMatchObject({
      kind: EntityKind.VIRTUAL_KEY,
      version: 1,
      body: {
        $case: 'virtualKey',
        value: { slug: 'my-openai-key', aiProvider: 'openai', providerId: created.body.id },
      },
    });
    expect(
      virtualKey?.body?.$case === 'virtualKey' && virtualKey.body.value.encryptedCredentials.length,
    ).toBe(0);
    const audit = (await auditEvents(pg.pool)).find((a) => a.action === 'virtual_keys.create');
    expect(audit).toMatchObject({
      resourceType: 'virtual_key',
      resourceId: created.body.id,
      outcome: AuditOutcome.SUCCESS,
    });
    expect(JSON.parse(audit?.requestDetailsJson ?? '{}').body.key).toBe('[redacted]');

    const bedrock = await cp.call('post', '/virtual-keys', {
      key,
      body: {
        name: 'Bedrock',
        provider: 'bedrock',
        credentials: { aws_access_key_id: 'AKIAABCDEFGHIJKLMNOP', aws_secret_access_key: AWS_SECRET },
        options: { region: 'us-east-1' },
      },
    });
    expect(bedrock.status, JSON.stringify(bedrock.body)).toBe(201);
    expect(bedrock.body).toMatchObject({
      key: null,
      options: { region: 'us-east-1' },
      credentials: { aws_secret_access_key: '****SECR' },
    });
    await expectSecretsNowhere(pg.pool, [OPENAI_KEY, AWS_SECRET]);
  });

  test('validation and conflicts name their field', async ({ cp }) => {
    const ws = await workspace(cp, 'Legacy checks');
    const base = { workspace_id: ws.id, name: 'Check', provider: 'openai', key: OPENAI_KEY };
    const cases: [Record<string, unknown>, number, string, string | null][] = [
      [{ ...base, key: undefined }, 400, 'AB01', 'body.credentials'],
      [{ ...base, credentials: { api_key: OPENAI_KEY } }, 400, 'AB01', 'body.key'],
      [{ ...base, key: 'bad key\n' }, 400, 'AB01', 'body.key'],
      [{ ...base, provider: 'bedrock' }, 400, 'AB01', 'body.options.region'],
      [{ ...base, provider: 'unknown' }, 400, 'AB01', 'body.provider'],
      [{ ...base, options: { custom_host: 'gopher://x' } }, 400, 'AB01', 'body.options.custom_host'],
      [{ ...base, name: '' }, 400, 'AB01', 'body.name'],
      [
        {
          ...base,
          rate_limits: [
            { type: 'requests', unit: 'rpm', value: 1 },
            { type: 'requests', unit: 'rpm', value: 2 },
          ],
        },
        400,
        'AB01',
        'body.rate_limits',
      ],
      [{ ...base, integration_id: randomUUID() }, 400, 'AB01', 'body'],
      [{ ...base, workspace_id: undefined }, 400, 'AB01', 'body.workspace_id'],
    ];
    for (const [body, status, code, param] of cases) {
      expectError(await cp.call('post', '/virtual-keys', { body }), status, code, param);
    }
    expect((await cp.call('post', '/virtual-keys', { body: { ...base, slug: 'dup' } })).status).toBe(201);
    expectError(
      await cp.call('post', '/virtual-keys', { body: { ...base, slug: 'dup' } }),
      409,
      'AB07',
      'body.slug',
    );

    // A provider made from an integration is a virtual key too, but its credentials live there.
    const integration = await createIntegration(cp, { name: 'Legacy int', workspaces: [{ id: ws.id }] });
    const listed = await cp.call('get', `/virtual-keys?workspace_id=${ws.id}&provider=openai`);
    const fromIntegration = listed.body.data.find(
      (v: { integration_id: string | null }) => v.integration_id === integration.id,
    );
    expect(fromIntegration).toMatchObject({
      object: 'virtual-key',
      key: null,
      credentials: null,
      slug: 'legacy-int',
    });
    for (const [body, param] of [
      [{ key: ROTATED_KEY }, 'body.key'],
      [{ credentials: { api_key: ROTATED_KEY } }, 'body.credentials'],
      [{ options: { custom_host: 'https://x.example.com' } }, 'body.options'],
    ] as const) {
      expectError(await cp.call('put', `/virtual-keys/${fromIntegration.id}`, { body }), 409, 'AB07', param);
    }
    expect(
      (await cp.call('put', `/virtual-keys/${fromIntegration.id}`, { body: { note: 'fine' } })).body.note,
    ).toBe('fine');
  });

  test('update rotates the key, delete leaves both tombstones; isolation and scopes hold', async ({
    cp,
    pg,
  }) => {
    const a = await workspace(cp, 'Legacy A');
    const b = await workspace(cp, 'Legacy B');
    const keyA = await serviceKey(cp, a.id, VK_SCOPES);
    const keyB = await serviceKey(cp, b.id, VK_SCOPES);
    const created = await cp.call('post', '/virtual-keys', {
      key: keyA,
      body: { name: 'Rotating', provider: 'groq', key: OPENAI_KEY },
    });
    const id = created.body.id as string;

    const rotated = await cp.call('put', `/virtual-keys/${id}`, {
      key: keyA,
      body: { key: ROTATED_KEY, status: 'disabled', expires_at: '2099-06-01T00:00:00Z' },
    });
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    expect(rotated.body).toMatchObject({
      key: '****rot9',
      status: 'disabled',
      expires_at: '2099-06-01T00:00:00.000Z',
    });
    const latest = (await entityChanges(pg.pool, id, EntityKind.PROVIDER)).at(-1);
    expect(latest?.version).toBe(2);
    const envelope =
      latest?.body?.$case === 'provider' ? latest.body.value.encryptedCredentials : Buffer.alloc(0);
    expect(openProviderEnvelope(envelope, id)).toEqual({ api_key: ROTATED_KEY });

    expectError(await cp.call('get', `/virtual-keys/${id}`, { key: keyB }), 404, 'AB08');
    expectError(await cp.call('put', `/virtual-keys/${id}`, { key: keyB, body: { note: 'x' } }), 404, 'AB08');
    expectError(await cp.call('delete', `/virtual-keys/${id}`, { key: keyB }), 404, 'AB08');
    expect((await cp.call('get', '/virtual-keys', { key: keyB })).body.total).toBe(0);
    const providerOnly = await serviceKey(cp, a.id, ['providers.read', 'providers.delete']);
    expectError(await cp.call('get', `/virtual-keys/${id}`, { key: providerOnly }), 403, 'AB03');
    expectError(await cp.call('delete', `/virtual-keys/${id}`, { key: providerOnly }), 403, 'AB03');
    expectError(await cp.call('get', '/virtual-keys?status=exhausted'), 400, 'AB01', 'query.status.0');

    const deleted = await cp.call('delete', `/virtual-keys/${id}`, { key: keyA });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({});
    expectError(await cp.call('get', `/virtual-keys/${id}`), 404, 'AB08');
    expectError(await cp.call('get', `/providers/${id}`), 404, 'AB08');
    const tombstones = (await entityChanges(pg.pool, id)).filter((e) => e.tombstone);
    expect(tombstones.map((e) => [e.kind, e.version])).toEqual([
      [EntityKind.PROVIDER, 3],
      [EntityKind.VIRTUAL_KEY, 3],
    ]);
    const audits = (await auditEvents(pg.pool))
      .filter((e) => e.resourceId === id)
      .map((e) => [e.action, e.statusCode]);
    expect(audits).toEqual([
      ['virtual_keys.create', 201],
      ['virtual_keys.update', 200],
      ['virtual_keys.update', 404],
      ['virtual_keys.delete', 404],
      ['virtual_keys.delete', 403],
      ['virtual_keys.delete', 200],
    ]);
    await expectSecretsNowhere(pg.pool, [OPENAI_KEY, ROTATED_KEY]);
  });
});
