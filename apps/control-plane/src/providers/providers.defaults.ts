// `create_default_provider`: a provider of the integration in each workspace it was just given, so
// the workspace can call `@<slug>` without a second step.
import { randomUUID } from 'node:crypto';
import type { Principal } from '../auth/principal.js';
import type { MutationTx } from '../http/route.js';
import type { IntegrationRow } from '../integrations/integrations.entity.js';
import type { ProviderRow } from './providers.entity.js';
import { creatorOf, insertProvider } from './providers.repository.js';

/**
 * Creates the default provider in every listed workspace that has no provider of this integration
 * yet (so repeating a bulk update creates nothing twice). A slug already used in a workspace by
 * another provider is 409 AB07 on `slugParam`, and nothing of the request is kept.
 */
export async function createDefaultProviders(
  tx: MutationTx,
  principal: Principal,
  integration: IntegrationRow,
  workspaceIds: readonly string[],
  slug: string,
  slugParam: string,
): Promise<ProviderRow[]> {
  if (workspaceIds.length === 0) return [];
  const existing = new Set(
    (
      await tx.db
        .selectFrom('providers')
        .select('workspace_id')
        .where('integration_id', '=', integration.id)
        .where('workspace_id', 'in', workspaceIds)
        .execute()
    ).map((r) => r.workspace_id),
  );
  const created: ProviderRow[] = [];
  for (const workspaceId of workspaceIds) {
    if (existing.has(workspaceId)) continue;
    created.push(
      await insertProvider(
        tx,
        {
          id: randomUUID(),
          organisation_id: integration.organisation_id,
          workspace_id: workspaceId,
          integration_id: integration.id,
          name: integration.name,
          slug,
          ai_provider: integration.ai_provider,
          ...creatorOf(principal),
        },
        slugParam,
      ),
    );
  }
  return created;
}
