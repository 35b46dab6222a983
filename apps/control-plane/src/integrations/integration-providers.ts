// What the integration routes do to an integration's providers (create the default ones, delete
// them with it), as a port: providers depend on integrations, so the implementation lives in
// providers/ (integration-providers.ts there) and routes.ts hands it to the integration routes.
import type { Principal } from '../auth/principal.js';
import type { MutationTx } from '../http/route.js';
import type { IntegrationRow } from './integrations.entity.js';

export interface IntegrationProviders {
  /**
   * Creates the default provider in every listed workspace that has none of this integration yet;
   * a slug already used there is 409 AB07 on `slugParam`.
   */
  createDefaults(
    tx: MutationTx,
    principal: Principal,
    integration: IntegrationRow,
    workspaceIds: readonly string[],
    slug: string,
    slugParam: string,
  ): Promise<unknown>;
  /** Deletes (with tombstones) every provider of the integration, locking them first. */
  deleteAllOf(tx: MutationTx, integrationId: string): Promise<void>;
}
