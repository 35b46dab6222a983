// Organisation rows as the API returns them and as gateways receive them (proto Entity).
import { type Entity, EntityKind, EntityStatus } from '@aigw/proto';
import type { Selectable } from 'kysely';
import type { OrganisationsTable } from '../db/schema.js';
import { type AccessOverrides, accessToProto, effectiveAccess } from './access-settings.js';

export type OrganisationRow = Selectable<OrganisationsTable>;

export function organisationToApi(row: OrganisationRow) {
  const access = (row.settings.access ?? {}) as AccessOverrides;
  return {
    id: row.id,
    object: 'organisation' as const,
    name: row.name,
    slug: row.slug,
    status: row.status,
    settings: effectiveAccess(access),
    default_metadata: row.default_metadata,
    created_at: row.created_at.toISOString(),
    last_updated_at: row.updated_at.toISOString(),
  };
}

export function organisationEntity(row: OrganisationRow): Entity {
  return {
    kind: EntityKind.ORGANISATION,
    id: row.id,
    version: Number(row.version),
    tombstone: false,
    organisationId: row.id,
    workspaceId: '',
    updatedAtMs: row.updated_at.getTime(),
    body: {
      $case: 'organisation',
      value: {
        name: row.name,
        slug: row.slug,
        status: row.status === 'active' ? EntityStatus.ACTIVE : EntityStatus.DISABLED,
        access: accessToProto((row.settings.access ?? {}) as AccessOverrides),
        defaultMetadata: row.default_metadata,
        createdAtMs: row.created_at.getTime(),
      },
    },
  };
}
