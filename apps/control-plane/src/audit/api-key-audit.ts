// Audit records of refused API keys (spec part 6 audits credential failures; issue 17 item 3): a key
// this control plane knows (revoked, expired, of a disabled organisation, ...) is recorded under its
// organisation and workspace with the key as actor; an unknown key belongs to no organisation and
// is recorded unattributed, for the deployment's operator (GET /audit-logs?scope=platform). Nothing
// of the presented key is recorded: not the key, not its hash.
import { ActorType } from '@aigw/proto';
import type { Logger } from '@aigw/runtime';
import type { Request } from 'express';
import type { Kysely } from 'kysely';
import type { ControlDatabase } from '../db/schema.js';
import { recordAudit } from '../outbox/outbox.js';
import { buildAuditEvent } from './audit-event.js';

/** Why a presented API key was refused (the last part of the audit action). */
export type ApiKeyRejection =
  | 'unknown'
  | 'revoked'
  | 'expired'
  | 'organisation_disabled'
  | 'workspace_archived'
  | 'owner_removed'
  | 'not_a_member';

/** The stored key a refusal is about; null for a key this control plane does not have. */
export interface RejectedKey {
  readonly id: string;
  readonly name: string;
  readonly organisationId: string;
  readonly workspaceId: string | null;
}

export type OnApiKeyRejected = (
  req: Request,
  reason: ApiKeyRejection,
  key: RejectedKey | null,
) => Promise<void>;

export interface ApiKeyAuditDeps {
  readonly db: Kysely<ControlDatabase>;
  readonly log: Logger;
  readonly enabled: boolean;
}

export function apiKeyRejectionAuditor(deps: ApiKeyAuditDeps): OnApiKeyRejected {
  return async (req, reason, key) => {
    if (!deps.enabled) return;
    try {
      await recordAudit(
        deps.db,
        buildAuditEvent(req, {
          organisationId: key?.organisationId ?? '',
          workspaceId: key?.workspaceId ?? null,
          actor: key
            ? { type: ActorType.API_KEY, userId: '', apiKeyId: key.id, displayName: key.name }
            : { type: ActorType.SYSTEM, userId: '', apiKeyId: '', displayName: 'unknown API key' },
          action: `auth.api_key_rejected.${reason}`,
          resourceType: 'api_key',
          resourceId: key?.id ?? null,
          statusCode: 401,
          traceId: '',
        }),
      );
    } catch (err) {
      // A refusal stays a refusal when its record cannot be written; the failure is an incident.
      deps.log.error({ err, reason }, 'failed to audit a rejected API key');
    }
  };
}
