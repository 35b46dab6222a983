// The virtual key as an owner of secret mappings (integrations/secret-owners.ts says what an owner
// is): a provider row holding its own credentials (migration 0017), reaching exactly its workspace,
// announced to gateways as both the provider and the virtual key it is.
import { bump, type Reach, type SecretOwner } from '../integrations/secret-owners.js';
import { type ProviderRow, providerEntity } from './providers.entity.js';
import { virtualKeyEntity } from './virtual-keys.entity.js';

/** A virtual key reaches exactly its own workspace. */
export function virtualKeyReach(workspaceId: string): Reach {
  return { allow_all_workspaces: false, workspaces: [{ workspace_id: workspaceId, enabled: true }] };
}

export const VIRTUAL_KEY_SECRETS: SecretOwner<ProviderRow> = {
  kind: 'provider',
  table: 'providers',
  resourceType: 'virtual_key',
  auditAction: 'virtual_keys.secrets.resolve',
  reach: (row) => virtualKeyReach(row.workspace_id),
  workspaceId: (row) => row.workspace_id,
  async find(db, id, forUpdate) {
    const query = db.selectFrom('providers').selectAll().where('id', '=', id);
    return (forUpdate ? query.forUpdate() : query).executeTakeFirst();
  },
  write(db, id, set, bumped) {
    return db
      .updateTable('providers')
      .set({ ...set, ...bump(bumped) })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  },
  // Both kinds, as every provider write announces them (providers.repository.ts).
  entities: (row) => [providerEntity(row), virtualKeyEntity(row)],
};
