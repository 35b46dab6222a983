// The providers side of the integration routes (integrations/integration-providers.ts): default
// providers for newly enabled workspaces, and the providers that go when their integration does.
import type { IntegrationProviders } from '../integrations/integration-providers.js';
import { createDefaultProviders } from './providers.defaults.js';
import { deleteProvider } from './providers.repository.js';

export const integrationProviders: IntegrationProviders = {
  createDefaults: createDefaultProviders,
  async deleteAllOf(tx, integrationId) {
    // Providers of a deleted integration would have no credentials left: they go with it.
    const providers = await tx.db
      .selectFrom('providers')
      .selectAll()
      .where('integration_id', '=', integrationId)
      .forUpdate()
      .execute();
    for (const provider of providers) await deleteProvider(tx, provider);
  },
};
