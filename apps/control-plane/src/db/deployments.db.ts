// Typed view of the deployments table (migration 0015), added to the control schema with
// `withTables` like the other families (no edit of the shared db/schema.ts).
import type { Kysely, Selectable } from 'kysely';
import type { ConfigTables } from './configs.db.js';
import type { CreatedAt, Status, UpdatedAt, Version } from './guardrails.db.js';
import type { ControlDatabase } from './schema.js';

export type DeploymentType = 'production' | 'non-production';

export interface DeploymentsTable {
  id: string;
  organisation_id: string;
  workspace_id: string;
  name: string;
  slug: string;
  description: string | null;
  type: DeploymentType;
  status: Status;
  config_id: string;
  created_by_user_id: string | null;
  created_by_api_key_id: string | null;
  version: Version;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export type DeploymentTables = ConfigTables & { deployments: DeploymentsTable };
export type DeploymentDatabase = ControlDatabase & DeploymentTables;
export type DeploymentRow = Selectable<DeploymentsTable>;

export function deploymentDb(db: Kysely<ControlDatabase>): Kysely<DeploymentDatabase> {
  return db.withTables<DeploymentTables>();
}
