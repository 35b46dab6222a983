// Audit records of refused tokens (spec part 6: token-authentication errors are audited). A record
// belongs to the organisation the token names when its signature verified and that organisation
// exists; otherwise it is unattributed (no organisation), read with GET /audit-logs?scope=platform.
import type { Logger } from '@aigw/runtime';
import type { Request } from 'express';
import type { Kysely } from 'kysely';
import { buildAuditEvent } from '../audit/audit-event.js';
import type { ControlDatabase } from '../db/schema.js';
import { recordAudit } from '../outbox/outbox.js';
import type { TokenError } from './jwt.js';
import { SYSTEM_ACTOR } from './principal.js';

export interface TokenAuditDeps {
  readonly db: Kysely<ControlDatabase>;
  readonly log: Logger;
  readonly enabled: boolean;
}

export type OnTokenRejected = (
  req: Request,
  error: TokenError,
  organisationId: string | null,
) => Promise<void>;

export function tokenRejectionAuditor(deps: TokenAuditDeps): OnTokenRejected {
  return async (req, error, organisationId) => {
    if (!deps.enabled) return;
    try {
      const known =
        organisationId === null
          ? undefined
          : await deps.db
              .selectFrom('organisations')
              .select('id')
              .where('id', '=', organisationId)
              .executeTakeFirst();
      await recordAudit(
        deps.db,
        buildAuditEvent(req, {
          organisationId: known?.id ?? '',
          workspaceId: null,
          actor: { ...SYSTEM_ACTOR, displayName: 'unauthenticated token' },
          action: `auth.token_rejected.${error.reason}`,
          resourceType: 'token',
          resourceId: null,
          statusCode: 401,
          traceId: '',
        }),
      );
    } catch (err) {
      deps.log.error({ err }, 'failed to audit a rejected token');
    }
  };
}
