// Builds AuditEvents from admin requests: who, what, which resource, from where, with secrets redacted
// (redaction.ts decides what a secret is).
import { randomUUID } from 'node:crypto';
import { type Actor, type AuditEvent, AuditOutcome, SCHEMA_VERSION } from '@aigw/proto';
import type { Request } from 'express';
import { redactSecrets } from './redaction.js';

export { redactSecrets } from './redaction.js';

export interface AuditFacts {
  readonly organisationId: string;
  readonly workspaceId: string | null;
  readonly actor: Actor;
  readonly action: string;
  readonly resourceType: string;
  readonly resourceId: string | null;
  readonly statusCode: number;
  readonly traceId: string;
}

const MAX_DETAILS_BYTES = 16 * 1024;

export function buildAuditEvent(req: Request, facts: AuditFacts): AuditEvent {
  let details = JSON.stringify({
    query: redactSecrets(req.query, facts.resourceType),
    body: redactSecrets(req.body ?? null, facts.resourceType),
  });
  if (Buffer.byteLength(details) > MAX_DETAILS_BYTES) details = JSON.stringify({ truncated: true });
  return {
    schemaVersion: SCHEMA_VERSION,
    id: randomUUID(),
    occurredAtMs: Date.now(),
    organisationId: facts.organisationId,
    workspaceId: facts.workspaceId ?? '',
    actor: facts.actor,
    action: facts.action,
    resourceType: facts.resourceType,
    resourceId: facts.resourceId ?? '',
    ip: req.ip ?? req.socket.remoteAddress ?? '',
    userAgent: String(req.headers['user-agent'] ?? '').slice(0, 512),
    requestMethod: req.method,
    requestPath: req.baseUrl + req.path,
    requestDetailsJson: details,
    outcome: facts.statusCode < 400 ? AuditOutcome.SUCCESS : AuditOutcome.FAILURE,
    statusCode: facts.statusCode,
    traceId: facts.traceId,
  };
}
