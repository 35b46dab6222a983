// Typed view of the prompt tables (migration 0013), added to the control schema with `withTables`
// (no edit of the shared db/schema.ts).
import type { ColumnType, JSONColumnType, Kysely, Selectable } from 'kysely';
import type { CreatedAt, Status, UpdatedAt, Version } from '../db/guardrails.db.js';
import type { ControlDatabase } from '../db/schema.js';

export type PromptKind = 'prompt' | 'partial';
type JsonObject = JSONColumnType<Record<string, unknown>, string | undefined, string>;

export interface PromptCollectionsTable {
  id: string;
  organisation_id: string;
  workspace_id: string;
  parent_id: string | null;
  name: string;
  slug: string;
  created_by_user_id: string | null;
  created_by_api_key_id: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface PromptLabelsTable {
  id: string;
  organisation_id: string;
  workspace_id: string;
  name: string;
  description: string | null;
  created_by_user_id: string | null;
  created_by_api_key_id: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface PromptsTable {
  id: string;
  organisation_id: string;
  workspace_id: string;
  kind: PromptKind;
  collection_id: string | null;
  name: string;
  slug: string;
  status: Status;
  latest_version: ColumnType<number, number | undefined, number>;
  /** The published version: what a request naming no label or version gets. */
  default_version: ColumnType<number, number | undefined, number>;
  created_by_user_id: string | null;
  created_by_api_key_id: string | null;
  /** The entity version (snapshot and change events), +1 on every write. */
  version: Version;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface PromptVersionsTable {
  prompt_id: string;
  version: number;
  template: string;
  model: string | null;
  provider: string | null;
  parameters: JsonObject;
  variables: JsonObject;
  metadata: JsonObject;
  description: string | null;
  created_by_user_id: string | null;
  created_by_api_key_id: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface PromptVersionLabelsTable {
  prompt_id: string;
  label_id: string;
  version: number;
  updated_at: UpdatedAt;
}

export type PromptTables = {
  prompt_collections: PromptCollectionsTable;
  prompt_labels: PromptLabelsTable;
  prompts: PromptsTable;
  prompt_versions: PromptVersionsTable;
  prompt_version_labels: PromptVersionLabelsTable;
};

export type PromptDatabase = ControlDatabase & PromptTables;
export type PromptRow = Selectable<PromptsTable>;
export type PromptVersionRow = Selectable<PromptVersionsTable>;
export type CollectionRow = Selectable<PromptCollectionsTable>;
export type LabelRow = Selectable<PromptLabelsTable>;

export function promptDb(db: Kysely<ControlDatabase>): Kysely<PromptDatabase> {
  return db.withTables<PromptTables>();
}
