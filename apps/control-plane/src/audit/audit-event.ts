// Builds AuditEvents from admin requests: who, what, which resource, from where, with secrets redacted.
import { randomUUID } from 'node:crypto';
import { type Actor, type AuditEvent, AuditOutcome, SCHEMA_VERSION } from '@aigw/proto';
import type { Request } from 'express';

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

const SECRET_NAME = /key|secret|token|password|credential|authorization|cookie/i;
const MAX_DETAILS_BYTES = 16 * 1024;
const REDACTED = '[redacted]';

/** Deep copy with every value under a secret-looking name replaced. */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (depth > 8) return '[truncated]';
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, depth + 1));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [name, inner] of Object.entries(value)) {
      out[name] =
        SECRET_NAME.test(name) && !isHarmless(name, inner) ? REDACTED : redactSecrets(inner, depth + 1);
    }
    return out;
  }
  return value;
}

/** Names like `api_key_id` or `key_count` are identifiers, not secrets. */
function isHarmless(name: string, value: unknown): boolean {
  return /(_id|_ids|_count|_name)$/i.test(name) && (typeof value === 'string' || typeof value === 'number');
}

export function buildAuditEvent(req: Request, facts: AuditFacts): AuditEvent {
  let details = JSON.stringify({ query: redactSecrets(req.query), body: redactSecrets(req.body ?? null) });
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
