// Typed view of the `control` schema for Kysely.
import type { ColumnType, Generated, JSONColumnType } from 'kysely';

export const SCHEMA = 'control';

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;
/** bigint: pg returns it as a string; updates set `sql<number>`version + 1``. */
type Version = ColumnType<string, number | undefined, number>;
export type Json<T extends object> = JSONColumnType<T, string | undefined, string>;

export interface OutboxTable {
  id: Generated<string>;
  subject: string;
  payload: Buffer;
  created_at: ColumnType<Date, never, never>;
  published_at: Date | null;
}

export type OrgRole = 'owner' | 'admin' | 'member';
export type WorkspaceRole = 'manager' | 'member';
export type ApiKeyType = 'admin' | 'workspace' | 'service';

export interface OrganisationsTable {
  id: string;
  name: string;
  slug: string;
  status: 'active' | 'disabled';
  settings: Json<Record<string, unknown>>;
  default_metadata: Json<Record<string, string>>;
  version: Version;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface UsersTable {
  id: string;
  organisation_id: string;
  email: string;
  first_name: ColumnType<string, string | undefined, string>;
  last_name: ColumnType<string, string | undefined, string>;
  role: OrgRole;
  status: ColumnType<'active' | 'removed', 'active' | 'removed' | undefined, 'active' | 'removed'>;
  /** SCIM `externalId`: the identity provider's id of the user (migration 0020). */
  external_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** Set when SCIM deleted the (removed) user: SCIM answers 404 for it from then on. */
  scim_deleted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  version: Version;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface WorkspacesTable {
  id: string;
  organisation_id: string;
  name: string;
  slug: string;
  description: ColumnType<string, string | undefined, string>;
  status: ColumnType<'active' | 'archived', 'active' | 'archived' | undefined, 'active' | 'archived'>;
  default_metadata: Json<Record<string, string>>;
  settings: Json<Record<string, unknown>>;
  usage_limits: Json<unknown[]>;
  rate_limits: Json<unknown[]>;
  version: Version;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface WorkspaceMembersTable {
  workspace_id: string;
  user_id: string;
  role: WorkspaceRole;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

/** Stored invite statuses; `expired` is set only when a new invite replaces an expired pending one. */
export type InviteStatus = 'pending' | 'accepted' | 'cancelled' | 'expired';

export interface UserInvitesTable {
  id: string;
  organisation_id: string;
  email: string;
  role: 'admin' | 'member';
  workspaces: Json<{ id: string; role: WorkspaceRole }[]>;
  token_hash: string;
  status: ColumnType<InviteStatus, 'pending' | undefined, InviteStatus>;
  invited_by_user_id: string | null;
  invited_by_api_key_id: string | null;
  accepted_user_id: string | null;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface ApiKeysTable {
  id: string;
  organisation_id: string;
  workspace_id: string | null;
  user_id: string | null;
  type: ApiKeyType;
  name: string;
  description: ColumnType<string, string | undefined, string>;
  key_hash: string;
  last4: string;
  scopes: string[];
  status: ColumnType<
    'active' | 'expired' | 'disabled' | 'archived',
    'active' | undefined,
    'active' | 'expired' | 'disabled' | 'archived'
  >;
  expires_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  usage_limits: Json<unknown[]>;
  rate_limits: Json<unknown[]>;
  defaults: Json<Record<string, unknown>>;
  created_by_user_id: string | null;
  created_by_api_key_id: string | null;
  version: Version;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
  rotated_at: ColumnType<Date | null, never, Date | string | null>;
}

export interface TombstonesTable {
  kind: number;
  id: string;
  organisation_id: string | null;
  workspace_id: string | null;
  version: ColumnType<string, number, number>;
  deleted_at: UpdatedAt;
}

/** An integration's settings for one workspace (stored in `integrations.workspaces`). */
export interface IntegrationWorkspaceEntry {
  workspace_id: string;
  enabled: boolean;
  rate_limits: unknown[];
  usage_limits: unknown[];
}

/** Masked credentials for display: every secret value reduced to its last four characters. */
type MaskedCredentials = JSONColumnType<Record<string, unknown> | null, string | null, string | null>;

export interface IntegrationsTable {
  id: string;
  organisation_id: string;
  name: string;
  slug: string;
  description: ColumnType<string, string | undefined, string>;
  ai_provider: string;
  status: ColumnType<'active' | 'disabled', 'active' | 'disabled' | undefined, 'active' | 'disabled'>;
  /** AES-256-GCM envelope (secret-box) of the credentials JSON, AAD `integration:<id>`. */
  encrypted_credentials: Buffer | null;
  masked_credentials: MaskedCredentials;
  options: Json<Record<string, unknown>>;
  allow_all_workspaces: ColumnType<boolean, boolean | undefined, boolean>;
  workspaces: Json<IntegrationWorkspaceEntry[]>;
  allowed_models: ColumnType<string[], string[] | undefined, string[]>;
  rate_limits: Json<unknown[]>;
  usage_limits: Json<unknown[]>;
  tags: Json<Record<string, string>>;
  /** Credential fields taken from secret references (migration 0016; secret-references/). */
  secret_mappings: Json<SecretMapping[]>;
  /** Last time every mapping resolved; the refresh window runs from here. */
  secrets_resolved_at: Date | null;
  /** Last time the refresher tried (success or not). */
  secrets_checked_at: Date | null;
  /** Why the last resolution failed; null after a success. */
  secrets_error: string | null;
  /** The credentials were withdrawn: resolution failed past the refresh window (gateways refuse). */
  secrets_withheld: ColumnType<boolean, boolean | undefined, boolean>;
  version: Version;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

/** One credential field of an integration taken from a secret reference. */
export interface SecretMapping {
  /** The credential field it fills (`api_key`, `aws_secret_access_key`, ...). */
  readonly field: string;
  readonly secret_reference_id: string;
  /** The key inside a secret that holds several values (a Vault KV entry, a JSON secret). */
  readonly key: string | null;
}

export type ProviderStoredStatus = 'active' | 'expired' | 'disabled' | 'archived';

/** Providers and legacy virtual keys: one row each (docs/admin-api/integrations.md). */
export interface ProvidersTable {
  id: string;
  organisation_id: string;
  workspace_id: string;
  integration_id: string | null;
  name: string;
  slug: string;
  note: ColumnType<string, string | undefined, string>;
  ai_provider: string;
  status: ColumnType<ProviderStoredStatus, ProviderStoredStatus | undefined, ProviderStoredStatus>;
  /** Own envelope (virtual keys with their own key), AAD `provider:<id>`; null: the integration's. */
  encrypted_credentials: Buffer | null;
  masked_credentials: MaskedCredentials;
  options: Json<Record<string, unknown>>;
  allowed_models: ColumnType<string[], string[] | undefined, string[]>;
  rate_limits: Json<unknown[]>;
  usage_limits: Json<unknown[]>;
  expires_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  tags: Json<Record<string, string>>;
  created_by_user_id: string | null;
  created_by_api_key_id: string | null;
  /** Own credential fields taken from secret references (virtual keys only; migration 0017). */
  secret_mappings: Json<SecretMapping[]>;
  /** The same resolution state as an integration's (IntegrationsTable). */
  secrets_resolved_at: Date | null;
  secrets_checked_at: Date | null;
  secrets_error: string | null;
  secrets_withheld: ColumnType<boolean, boolean | undefined, boolean>;
  version: Version;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

/** Model prices (docs/admin-api/model-pricing.md): platform rows (organisation null) and overrides. */
export interface ModelPricingTable {
  id: string;
  organisation_id: string | null;
  ai_provider: string;
  model: string;
  currency: ColumnType<string, string | undefined, string>;
  /** Micro-units per million tokens (bigint: pg returns a string). */
  input_micros_per_mtok: ColumnType<string, number, number>;
  output_micros_per_mtok: ColumnType<string, number, number>;
  cached_input_micros_per_mtok: ColumnType<string, number, number>;
  cache_write_micros_per_mtok: ColumnType<string, number, number>;
  request_micros: ColumnType<string, number | undefined, number>;
  /** Other dimensions: micro-units per named unit. */
  extra: Json<Record<string, number>>;
  version: Version;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface ControlDatabase {
  outbox: OutboxTable;
  organisations: OrganisationsTable;
  users: UsersTable;
  workspaces: WorkspacesTable;
  workspace_members: WorkspaceMembersTable;
  user_invites: UserInvitesTable;
  api_keys: ApiKeysTable;
  tombstones: TombstonesTable;
  integrations: IntegrationsTable;
  providers: ProvidersTable;
  model_pricing: ModelPricingTable;
}
