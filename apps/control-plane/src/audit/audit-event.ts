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

/**
 * Names whose values are secrets wherever they appear (lower case, `-` read as `_`): API keys and
 * tokens, provider credentials (`credentials`, `client_secret`, `aws_secret_access_key`, a key
 * file), passwords, and header maps (`custom_headers`, a webhook's `headers`), which carry
 * authorisation. Anchored at the end, so `api_key_id`, `private_key_id`, `max_tokens` or a policy's
 * `group_by_key` stay readable.
 */
const SECRET_NAME =
  /(^|_)(api_?key|secret|secret_access_key|password|passwd|token|session_token|credentials?|private_key|service_account_json|authorization|cookie|headers)$/;
/** A body's own `key` is a provider key (virtual keys); a nested `key` (policy conditions, group_by) is a name. */
const TOP_LEVEL_SECRET = 'key';
const MAX_DETAILS_BYTES = 16 * 1024;
const REDACTED = '[redacted]';

function isSecretName(name: string, depth: number): boolean {
  const normalised = name.toLowerCase().replaceAll('-', '_');
  return SECRET_NAME.test(normalised) || (depth === 0 && normalised === TOP_LEVEL_SECRET);
}

/** Deep copy with every value under a secret name replaced. */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (depth > 8) return '[truncated]';
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, depth + 1));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [name, inner] of Object.entries(value)) {
      out[name] = isSecretName(name, depth) ? REDACTED : redactSecrets(inner, depth + 1);
    }
    return out;
  }
  return value;
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
