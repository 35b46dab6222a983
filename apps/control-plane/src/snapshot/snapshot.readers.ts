// What a snapshot contains: one reader per entity kind, each returning live rows and tombstones.
import { type Entity, EntityKind } from '@aigw/proto';
import type { Kysely } from 'kysely';
import { apiKeyEntity } from '../api-keys/api-keys.entity.js';
import { readConfigEntities } from '../configs/configs.entity.js';
import type { ControlDatabase } from '../db/schema.js';
import { readDeploymentEntities } from '../deployments/deployments.entity.js';
import { readGuardrailEntities } from '../guardrails/guardrails.entity.js';
import { readIntegrationEntities } from '../integrations/integrations.entity.js';
import { readMcpIntegrationEntities } from '../mcp-integrations/mcp-integrations.entity.js';
import { readMcpServerEntities } from '../mcp-servers/mcp-servers.entity.js';
import { readModelPricingEntities } from '../model-pricing/model-pricing.entity.js';
import { organisationEntity } from '../organisations/organisations.entity.js';
import { readRateLimitsPolicies, readUsageLimitsPolicies } from '../policies/policies.snapshot.js';
import { readPromptEntities, readPromptPartialEntities } from '../prompts/index.js';
import { readProviderEntities } from '../providers/providers.entity.js';
import { readVirtualKeyEntities } from '../providers/virtual-keys.entity.js';
import { readTombstones } from '../tombstones/tombstones.js';
import { workspaceEntity } from '../workspaces/workspaces.entity.js';
import type { EntityReader } from './snapshot.repository.js';

function reader(
  kind: EntityKind,
  live: (trx: Kysely<ControlDatabase>) => Promise<Entity[]>,
): [EntityKind, EntityReader] {
  return [kind, async (trx) => [...(await live(trx)), ...(await readTombstones(trx, kind))]];
}

export const snapshotReaders: ReadonlyMap<EntityKind, EntityReader> = new Map([
  reader(EntityKind.ORGANISATION, async (trx) =>
    (await trx.selectFrom('organisations').selectAll().execute()).map(organisationEntity),
  ),
  reader(EntityKind.WORKSPACE, async (trx) =>
    (await trx.selectFrom('workspaces').selectAll().execute()).map(workspaceEntity),
  ),
  reader(EntityKind.API_KEY, async (trx) =>
    (await trx.selectFrom('api_keys').selectAll().execute()).map(apiKeyEntity),
  ),
  reader(EntityKind.INTEGRATION, readIntegrationEntities),
  reader(EntityKind.PROVIDER, readProviderEntities),
  reader(EntityKind.VIRTUAL_KEY, readVirtualKeyEntities),
  reader(EntityKind.MODEL_PRICING, readModelPricingEntities),
  reader(EntityKind.CONFIG, readConfigEntities),
  reader(EntityKind.DEPLOYMENT, readDeploymentEntities),
  reader(EntityKind.GUARDRAIL, readGuardrailEntities),
  reader(EntityKind.RATE_LIMIT_POLICY, readRateLimitsPolicies),
  reader(EntityKind.USAGE_LIMIT_POLICY, readUsageLimitsPolicies),
  reader(EntityKind.PROMPT, readPromptEntities),
  reader(EntityKind.PROMPT_PARTIAL, readPromptPartialEntities),
  reader(EntityKind.MCP_INTEGRATION, readMcpIntegrationEntities),
  reader(EntityKind.MCP_SERVER, readMcpServerEntities),
]);
