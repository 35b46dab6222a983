// Entity builders for the snapshot tests: small, valid envelopes of the kinds the sync carries.
import { Entity, EntityKind, EntityStatus } from '@aigw/proto';

const ORG = 'org-1';
const WS = 'ws-1';

export function apiKey(
  id: string,
  version: number,
  keyHash = `hash-${id}`,
  name = `key ${id} v${version}`,
): Entity {
  return Entity.fromPartial({
    kind: EntityKind.API_KEY,
    id,
    version,
    organisationId: ORG,
    workspaceId: WS,
    updatedAtMs: 1_700_000_000_000 + version,
    body: { $case: 'apiKey', value: { name, keyHash, last4: 'abcd', status: EntityStatus.ACTIVE } },
  });
}

/** A provider whose credentials are a sealed envelope (opaque bytes to the gateway). */
export function provider(
  id: string,
  version: number,
  slug = `p-${id}`,
  sealed = Buffer.from([1, 2, 3]),
): Entity {
  return Entity.fromPartial({
    kind: EntityKind.PROVIDER,
    id,
    version,
    organisationId: ORG,
    workspaceId: WS,
    body: {
      $case: 'provider',
      value: { name: slug, slug, aiProvider: 'openai', encryptedCredentials: sealed },
    },
  });
}

export function workspace(id: string, version: number): Entity {
  return Entity.fromPartial({
    kind: EntityKind.WORKSPACE,
    id,
    version,
    organisationId: ORG,
    workspaceId: id,
    body: { $case: 'workspace', value: { name: `ws ${id}`, slug: id } },
  });
}

export function tombstone(kind: EntityKind, id: string, version: number): Entity {
  return Entity.fromPartial({ kind, id, version, tombstone: true, organisationId: ORG, workspaceId: WS });
}
