import { CacheStatus, RequestEvent } from '@aigw/proto';
import { describe, expect, it } from 'vitest';
import { ledgerEntries, monthPeriod } from '../ledger/usage-ledger.js';
import { requestEvent } from '../testing/request-events.js';
import { isDataError } from './batch-processor.js';
import { invalidRequestEvent, logFormat, requestLogRow } from './request-row.js';
import { rollupRows } from './rollups.js';

describe('request event -> row', () => {
  it('maps every queried field, with NULL for empty strings and the prompt from metadata', () => {
    const event = requestEvent(6);
    event.modelServed = '';
    event.workspaceId = '';
    event.metadata = { _prompt: 'p-\u00001', team: 'a\u0000b' };
    const row = requestLogRow(event);
    expect(row).toMatchObject({
      id: event.id,
      received_at: new Date(event.receivedAtMs),
      organisation_id: event.organisationId,
      workspace_id: null,
      model: event.modelRequested,
      model_served: null,
      prompt_id: 'p-1',
      ai_service: 'openai',
      provider_slug: 'openai-main',
      status_code: event.statusCode,
      cache_status: event.cacheStatus,
      total_tokens: event.tokens?.totalTokens,
      cost_micros: event.cost?.amountMicros,
      latency_ms: (event.latency?.totalUs ?? 0) / 1000,
      attempts: 1,
      metadata: JSON.stringify({ _prompt: 'p-1', team: 'ab' }),
      log_format: 'json',
      request_body: Buffer.from('{"n":6}'),
    });
    // The stored protobuf has everything but the bodies (kept in their own columns).
    const stored = RequestEvent.decode(row.event);
    expect(stored.requestBody).toBeUndefined();
    expect(stored.responseBody).toBeUndefined();
    expect(stored.attempts).toEqual(event.attempts);
    expect(stored.id).toBe(event.id);
  });

  it('prefers the event prompt id and tells which events cannot be stored', () => {
    const event = requestEvent(6);
    event.promptId = 'p-event';
    expect(requestLogRow(event).prompt_id).toBe('p-event');
    expect(invalidRequestEvent(event)).toBeUndefined();
    expect(invalidRequestEvent({ ...event, id: 'x' })).toBe('id is not a uuid');
    expect(invalidRequestEvent({ ...event, receivedAtMs: 0 })).toBe('received_at_ms is not set');
    expect(invalidRequestEvent({ ...event, schemaVersion: 99 })).toBe('unsupported schema_version 99');
  });

  it('names the body format', () => {
    const body = (contentType: string) => ({
      data: Buffer.from('x'),
      truncated: false,
      sizeBytes: 1,
      contentType,
    });
    expect(logFormat(undefined, undefined)).toBe('none');
    expect(logFormat(body('application/json'), body('text/event-stream; charset=utf-8'))).toBe('sse');
    expect(logFormat(body('application/json'), undefined)).toBe('json');
    expect(logFormat(undefined, body('text/plain'))).toBe('text');
    expect(logFormat(undefined, body('audio/mpeg'))).toBe('binary');
  });
});

describe('rollups and ledger', () => {
  it('sums rows per hour and dimensions, in a stable order', () => {
    const rows = Array.from({ length: 40 }, (_, i) => requestLogRow(requestEvent(i)));
    const groups = rollupRows(rows);
    expect(groups.reduce((n, g) => n + g.requests, 0)).toBe(40);
    expect(groups.reduce((n, g) => n + g.cost_micros, 0)).toBe(
      rows.reduce((n, r) => n + Number(r.cost_micros), 0),
    );
    expect(groups.reduce((n, g) => n + g.errors, 0)).toBe(rows.filter((r) => r.status_code >= 400).length);
    expect(groups.reduce((n, g) => n + g.cache_hits, 0)).toBe(
      rows.filter((r) => r.cache_status === CacheStatus.HIT || r.cache_status === CacheStatus.SEMANTIC_HIT)
        .length,
    );
    expect(rollupRows([...rows].reverse())).toEqual(groups);
  });

  it('charges API keys and workspaces per UTC calendar month and for ever', () => {
    expect(monthPeriod(Date.UTC(2026, 11, 31, 23, 59))).toEqual({
      start: new Date(Date.UTC(2026, 11, 1)),
      end: new Date(Date.UTC(2027, 0, 1)),
    });
    const rows = Array.from({ length: 12 }, (_, i) => requestLogRow(requestEvent(i)));
    const entries = ledgerEntries(rows);
    expect(new Set(entries.map((e) => e.entity_kind))).toEqual(new Set(['api_key', 'workspace']));
    const served = requestEvent(1);
    served.provider = {
      type: 'openai',
      slug: 'p',
      providerId: 'prov-1',
      integrationId: 'int-1',
      customHost: '',
    };
    served.virtualKeyId = 'vk-1';
    const kinds = ledgerEntries([requestLogRow(served)]).map(
      (e) => `${e.entity_kind}:${e.entity_id}:${e.period_start.getTime() === 0}`,
    );
    expect(kinds).toEqual(
      expect.arrayContaining([
        'provider:prov-1:true',
        'provider:prov-1:false',
        'integration:int-1:false',
        'virtual_key:vk-1:true',
      ]),
    );
    const month = entries.filter((e) => e.period_start.getTime() !== 0);
    const ever = entries.filter((e) => e.period_start.getTime() === 0);
    for (const period of [month, ever]) {
      const keys = period.filter((e) => e.entity_kind === 'api_key');
      expect(keys.reduce((n, e) => n + e.requests, 0)).toBe(12);
      expect(period.filter((e) => e.entity_kind === 'workspace').reduce((n, e) => n + e.tokens, 0)).toBe(
        rows.reduce((n, r) => n + Number(r.total_tokens), 0),
      );
    }
  });

  it('treats only data, constraint and size errors as the batch data fault', () => {
    expect(isDataError({ code: '22P02' })).toBe(true);
    expect(isDataError({ code: '23514' })).toBe(true);
    expect(isDataError({ code: '54000' })).toBe(true);
    expect(isDataError({ code: '42P01' })).toBe(false);
    expect(isDataError({ code: '40P01' })).toBe(false);
    expect(isDataError(new Error('Connection terminated'))).toBe(false);
  });
});
