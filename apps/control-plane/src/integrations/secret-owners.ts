// The records that may take credential fields from secret references: integrations (migration 0016)
// and virtual keys, i.e. provider rows holding their own credentials (migration 0017). Each owner says
// how its row is read, locked and written, which workspaces it reaches (the references' workspace
// restriction is checked against them), what gateways receive when it changes, and how it is audited;
// secret-mappings.ts resolves, seals and refreshes for both through this one description. The
// virtual key's owner lives with the providers (providers/virtual-key-secrets.ts), the list of both
// with the secret references (secret-references/secret-owners.ts): providers depend on integrations,
// never the other way.
import type { Entity } from '@aigw/proto';
import { type Kysely, sql } from 'kysely';
import type { ControlDatabase, SecretMapping } from '../db/schema.js';
import { type IntegrationRow, integrationEntity } from './integrations.entity.js';

/** The workspaces a record reaches, for the workspace restriction of its references. */
export interface Reach {
  readonly allow_all_workspaces: boolean;
  readonly workspaces: readonly { workspace_id: string; enabled: boolean }[];
}

/** The columns both owners have. */
export interface MappedRow {
  readonly id: string;
  readonly organisation_id: string;
  readonly slug: string;
  readonly ai_provider: string;
  readonly encrypted_credentials: Buffer | null;
  readonly secret_mappings: SecretMapping[];
  readonly secrets_resolved_at: Date | null;
  readonly secrets_checked_at: Date | null;
  readonly secrets_error: string | null;
  readonly secrets_withheld: boolean;
  readonly created_at: Date;
}

/** What a resolution writes (`write`'s `bumped` also moves version and updated_at: a change). */
export interface SecretColumns {
  encrypted_credentials?: Buffer | null;
  masked_credentials?: string | null;
  secrets_resolved_at?: Date;
  secrets_checked_at?: Date;
  secrets_error?: string | null;
  secrets_withheld?: boolean;
}

export interface SecretOwner<Row extends MappedRow = MappedRow> {
  /** The credential envelope's owner (AAD `<kind>:<id>`). */
  readonly kind: 'integration' | 'provider';
  readonly table: 'integrations' | 'providers';
  /** How audit records and resolution results name it. */
  readonly resourceType: 'integration' | 'virtual_key';
  readonly auditAction: string;
  reach(row: Row): Reach;
  /** The workspace its audit records belong to ('' for organisation-level records). */
  workspaceId(row: Row): string;
  find(db: Kysely<ControlDatabase>, id: string, forUpdate: boolean): Promise<Row | undefined>;
  write(db: Kysely<ControlDatabase>, id: string, set: SecretColumns, bumped: Date | null): Promise<Row>;
  /** The change events gateways receive for it. */
  entities(row: Row): Entity[];
}

/** The columns a change moves when a resolution changed the credentials. */
export const bump = (at: Date | null) => (at ? { version: sql<number>`version + 1`, updated_at: at } : {});

export const INTEGRATION_SECRETS: SecretOwner<IntegrationRow> = {
  kind: 'integration',
  table: 'integrations',
  resourceType: 'integration',
  auditAction: 'integrations.secrets.resolve',
  reach: (row) => row,
  workspaceId: () => '',
  async find(db, id, forUpdate) {
    const query = db.selectFrom('integrations').selectAll().where('id', '=', id);
    return (forUpdate ? query.forUpdate() : query).executeTakeFirst();
  },
  write(db, id, set, bumped) {
    return db
      .updateTable('integrations')
      .set({ ...set, ...bump(bumped) })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  },
  entities: (row) => [integrationEntity(row)],
};
