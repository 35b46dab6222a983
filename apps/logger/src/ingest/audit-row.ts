// AuditEvent -> audit_logs row, and UsageAlertEvent -> usage_alerts row.
import { type AuditEvent, isSupportedSchemaVersion, type UsageAlertEvent } from '@aigw/proto';
import type { Insertable } from 'kysely';
import type { AuditLogsTable, UsageAlertsTable } from '../db/schema.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Postgres text cannot hold NUL: dropped rather than failing the batch. */
const NUL = '\u0000';

function text(value: string | undefined): string | null {
  if (value === undefined || value === '') return null;
  return value.replaceAll(NUL, '');
}

/** Request details as jsonb; text that is not JSON is kept as `{"raw": text}`. */
function detailsJson(details: string): string {
  if (details === '') return '{}';
  try {
    JSON.parse(details);
    // \u0000 is valid JSON but jsonb refuses it.
    return details.replace(/\\u0000/g, '');
  } catch {
    return JSON.stringify({ raw: details.replaceAll(NUL, '') });
  }
}

export function invalidAuditEvent(event: AuditEvent): string | undefined {
  if (!isSupportedSchemaVersion(event.schemaVersion))
    return `unsupported schema_version ${event.schemaVersion}`;
  if (!UUID.test(event.id)) return 'id is not a uuid';
  if (!(event.occurredAtMs > 0)) return 'occurred_at_ms is not set';
  if (!event.organisationId) return 'organisation_id is not set';
  return undefined;
}

export function auditLogRow(event: AuditEvent): Insertable<AuditLogsTable> {
  return {
    id: event.id.toLowerCase(),
    occurred_at: new Date(event.occurredAtMs),
    organisation_id: event.organisationId,
    workspace_id: text(event.workspaceId),
    actor_type: event.actor?.type ?? 0,
    actor_user_id: text(event.actor?.userId),
    actor_api_key_id: text(event.actor?.apiKeyId),
    actor_display_name: text(event.actor?.displayName),
    action: event.action.replaceAll(NUL, ''),
    resource_type: event.resourceType.replaceAll(NUL, ''),
    resource_id: text(event.resourceId),
    ip: text(event.ip),
    user_agent: text(event.userAgent),
    request_method: text(event.requestMethod),
    request_path: text(event.requestPath),
    request_details: detailsJson(event.requestDetailsJson),
    outcome: event.outcome,
    status_code: event.statusCode,
    trace_id: text(event.traceId),
  };
}

export function invalidUsageAlertEvent(event: UsageAlertEvent): string | undefined {
  if (!isSupportedSchemaVersion(event.schemaVersion))
    return `unsupported schema_version ${event.schemaVersion}`;
  if (!event.id) return 'id is not set';
  if (!(event.occurredAtMs > 0)) return 'occurred_at_ms is not set';
  if (!event.organisationId || !event.entityId) return 'organisation_id or entity_id is not set';
  return undefined;
}

export function usageAlertRow(event: UsageAlertEvent): Insertable<UsageAlertsTable> {
  return {
    id: event.id.replaceAll(NUL, ''),
    occurred_at: new Date(event.occurredAtMs),
    organisation_id: event.organisationId,
    workspace_id: text(event.workspaceId),
    kind: event.kind,
    entity_kind: event.entityKind,
    entity_id: event.entityId,
    group_value: event.groupValue.replaceAll(NUL, ''),
    type: event.type,
    usage: event.usage,
    credit_limit: event.creditLimit,
    alert_threshold: event.alertThreshold ?? null,
    period_start: event.periodStartMs > 0 ? new Date(event.periodStartMs) : null,
    instance_id: text(event.instanceId),
  };
}
