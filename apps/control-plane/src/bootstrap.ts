// First start on an empty database: the organisation, its owner and one admin API key (spec issue
// item 5), so the quick start can call the admin API at once. Safe when replicas start together.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { apiKeyEntity } from './api-keys/api-keys.entity.js';
import { describeApiKey, generateApiKey } from './auth/api-key-secret.js';
import { SYSTEM_ACTOR } from './auth/principal.js';
import { ALL_SCOPES } from './auth/scopes.js';
import type { ControlDatabase } from './db/schema.js';
import { organisationEntity } from './organisations/organisations.entity.js';
import { recordChange } from './outbox/outbox.js';

export interface BootstrapSettings {
  readonly BOOTSTRAP_ADMIN_KEY?: string | undefined;
  readonly BOOTSTRAP_ORGANISATION_NAME: string;
  readonly BOOTSTRAP_OWNER_EMAIL: string;
}

export interface BootstrapResult {
  readonly organisationId: string;
  readonly ownerId: string;
  readonly apiKeyId: string;
  /** The raw admin key when this call generated it (show it once); null when it came from settings. */
  readonly generatedKey: string | null;
}

/** Transaction-scoped lock id, so two replicas never bootstrap twice. */
const BOOTSTRAP_LOCK = 0x61696777_0001n;

/** Creates the first organisation when there is none; returns null when the database is not empty. */
export async function bootstrap(
  db: Kysely<ControlDatabase>,
  settings: BootstrapSettings,
): Promise<BootstrapResult | null> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${BOOTSTRAP_LOCK.toString()}::bigint)`.execute(trx);
    const existing = await trx.selectFrom('organisations').select('id').limit(1).executeTakeFirst();
    if (existing) return null;

    const organisationId = randomUUID();
    const ownerId = randomUUID();
    const apiKeyId = randomUUID();
    const secret = settings.BOOTSTRAP_ADMIN_KEY
      ? describeApiKey(settings.BOOTSTRAP_ADMIN_KEY)
      : generateApiKey();

    const organisation = await trx
      .insertInto('organisations')
      .values({
        id: organisationId,
        name: settings.BOOTSTRAP_ORGANISATION_NAME,
        slug: 'default',
        status: 'active',
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('users')
      .values({
        id: ownerId,
        organisation_id: organisationId,
        email: settings.BOOTSTRAP_OWNER_EMAIL.toLowerCase(),
        role: 'owner',
      })
      .execute();
    const key = await trx
      .insertInto('api_keys')
      .values({
        id: apiKeyId,
        organisation_id: organisationId,
        workspace_id: null,
        user_id: null,
        type: 'admin',
        name: 'Bootstrap admin key',
        key_hash: secret.hash,
        last4: secret.last4,
        scopes: [...ALL_SCOPES],
        created_by_user_id: ownerId,
        created_by_api_key_id: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordChange(trx, { entity: organisationEntity(organisation), actor: SYSTEM_ACTOR });
    await recordChange(trx, { entity: apiKeyEntity(key), actor: SYSTEM_ACTOR });
    return {
      organisationId,
      ownerId,
      apiKeyId,
      generatedKey: settings.BOOTSTRAP_ADMIN_KEY ? null : secret.key,
    };
  });
}
