// AuditEvent -> audit_logs row. An audit record is never
// refused for its content: text Postgres cannot hold is made storable (NUL dropped, an unpaired
// surrogate replaced by U+FFFD), and a row refused anyway is stored reduced (`reducedAuditRow`).
import { createHash } from 'node:crypto';
import { AuditEvent, AuditOutcome, isSupportedSchemaVersion } from '@aigw/proto';
import { jsonDeeperThan, MAX_JSON_DEPTH, toWellFormed } from '@aigw/runtime';
import type { Insertable } from 'kysely';
import type { AuditLogsTable } from '../db/schema.js';
import type { DeadLetterFacts } from './sink.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Postgres text cannot hold NUL: dropped rather than failing the batch. */
const NUL = '\u0000';

/** Text Postgres accepts: no NUL, no unpaired surrogate (its UTF-8 encoder refuses those). */
function storable(value: string): string {
  return toWellFormed(value.replaceAll(NUL, ''));
}

/** A time a Date (and so Postgres) can hold: beyond ±8.64e15 ms a Date is invalid. */
function isTime(ms: number): boolean {
  return ms > 0 && Number.isFinite(new Date(ms).getTime());
}

function text(value: string | undefined): string | null {
  if (value === undefined || value === '') return null;
  return storable(value);
}

/** A parsed JSON value with every string and key made storable (depth bounded by the caller). */
function storableJson(value: unknown): unknown {
  if (typeof value === 'string') return storable(value);
  if (Array.isArray(value)) return value.map(storableJson);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [storable(k), storableJson(v)]));
  return value;
}

/**
 * Request details as jsonb. JSON is stored with its text made storable; text that is not JSON, or
 * JSON nested deeper than MAX_JSON_DEPTH (jsonb and later readers would overflow), is kept as
 * `{"raw": text}` and read back as that text.
 */
function detailsJson(details: string): string {
  if (details === '') return '{}';
  let parsed: unknown;
  try {
    parsed = JSON.parse(details);
  } catch {
    return JSON.stringify({ raw: storable(details) });
  }
  if (jsonDeeperThan(parsed, MAX_JSON_DEPTH)) return JSON.stringify({ raw: storable(details) });
  return JSON.stringify(storableJson(parsed));
}

export function invalidAuditEvent(event: AuditEvent): string | undefined {
  if (!isSupportedSchemaVersion(event.schemaVersion))
    return `unsupported schema_version ${event.schemaVersion}`;
  if (!UUID.test(event.id)) return 'id is not a uuid';
  if (!(event.occurredAtMs > 0)) return 'occurred_at_ms is not set';
  if (!isTime(event.occurredAtMs)) return 'occurred_at_ms is out of range';
  // No organisation is a record too: a refused credential whose organisation could not be known.
  return undefined;
}

export function auditLogRow(event: AuditEvent): Insertable<AuditLogsTable> {
  return {
    id: event.id.toLowerCase(),
    occurred_at: new Date(event.occurredAtMs),
    organisation_id: text(event.organisationId),
    workspace_id: text(event.workspaceId),
    actor_type: event.actor?.type ?? 0,
    actor_user_id: text(event.actor?.userId),
    actor_api_key_id: text(event.actor?.apiKeyId),
    actor_display_name: text(event.actor?.displayName),
    action: storable(event.action),
    resource_type: storable(event.resourceType),
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

type AuditRow = Insertable<AuditLogsTable>;

const clip = (value: string | null | undefined, max: number) =>
  value === null || value === undefined ? null : value.slice(0, max);

/**
 * The row stored when Postgres refuses `row` on its data: who, what and when stay, text is
 * clipped, and the request details are replaced by the reason. Same id, so it is stored once.
 */
export function reducedAuditRow(row: AuditRow, error: string): AuditRow {
  return {
    ...row,
    organisation_id: clip(row.organisation_id, 255),
    workspace_id: clip(row.workspace_id, 255),
    actor_user_id: clip(row.actor_user_id, 255),
    actor_api_key_id: clip(row.actor_api_key_id, 255),
    actor_display_name: clip(row.actor_display_name, 255),
    action: row.action.slice(0, 255),
    resource_type: row.resource_type.slice(0, 255),
    resource_id: clip(row.resource_id, 255),
    ip: clip(row.ip, 64),
    user_agent: clip(row.user_agent, 512),
    request_method: clip(row.request_method, 16),
    request_path: clip(row.request_path, 2048),
    request_details: JSON.stringify({ unstorable_details: storable(error.slice(0, 500)) }),
    trace_id: clip(row.trace_id, 255),
  };
}

/** A uuid (version 8, RFC 9562) derived from `name`, so a redelivery yields the same id. */
function nameUuid(name: string): string {
  const hex = createHash('sha256').update(name).digest('hex');
  const variant = ((Number.parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function decodeAudit(payload: Uint8Array): AuditEvent | undefined {
  try {
    return AuditEvent.decode(payload);
  } catch {
    return undefined;
  }
}

/**
 * The `audit.dead_letter` record standing for an audit event set aside in dead_letters: the gap in
 * the trail is visible through /audit-logs (its organisation's readers, or organisation-level
 * readers of every organisation when the payload names none), pointing at the dead letter.
 */
export function deadLetterAuditRow(facts: DeadLetterFacts): AuditRow {
  const event = decodeAudit(facts.payload);
  const eventId = event && UUID.test(event.id) ? event.id.toLowerCase() : null;
  return {
    id: nameUuid(`dead-letter:${facts.stream}:${facts.seq}:${facts.index}`),
    // Always storable: the stand-in must never fail where the record did.
    occurred_at: event && isTime(event.occurredAtMs) ? new Date(event.occurredAtMs) : new Date(),
    organisation_id: clip(text(event?.organisationId), 255),
    workspace_id: clip(text(event?.workspaceId), 255),
    actor_type: 0,
    actor_user_id: null,
    actor_api_key_id: null,
    actor_display_name: 'logger',
    action: 'audit.dead_letter',
    resource_type: 'audit_log',
    resource_id: eventId,
    ip: null,
    user_agent: null,
    request_method: null,
    request_path: null,
    request_details: JSON.stringify({
      error: storable(facts.error.slice(0, 500)),
      stream: facts.stream,
      stream_seq: facts.seq,
      event_index: facts.index,
      original_action: event ? clip(text(event.action), 255) : null,
    }),
    outcome: AuditOutcome.FAILURE,
    status_code: 0,
    trace_id: null,
  };
}
