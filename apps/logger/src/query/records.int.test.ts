// Audit records, feedback and log exports through LogsService against real Postgres.
import {
  ActorType,
  AuditEvent,
  AuditOutcome,
  CreateExportRequest,
  type CreateExportResponse,
  CreateFeedbackRequest,
  type CreateFeedbackResponse,
  type DownloadExportResponse,
  ExportFormat,
  ExportStatus,
  type GetExportRequest,
  type GetExportResponse,
  GetLogRequest,
  type GetLogResponse,
  GetSummaryRequest,
  type GetSummaryResponse,
  ListAuditEventsRequest,
  type ListAuditEventsResponse,
  ListExportsRequest,
  type ListExportsResponse,
  ListFeedbackRequest,
  type ListFeedbackResponse,
  UpdateFeedbackRequest,
  type UpdateFeedbackResponse,
} from '@aigw/proto';
import { test as base } from '@aigw/testkit';
import { status } from '@grpc/grpc-js';
import type { Kysely } from 'kysely';
import { describe, expect } from 'vitest';
import type { LogsDatabase } from '../db/schema.js';
import { auditLogRow } from '../ingest/audit-row.js';
import {
  call,
  callerOf,
  eventId,
  filterOf,
  KEYS,
  makeEvents,
  matches,
  ORG_A,
  ORG_B,
  openLogsDatabase,
  startService,
  storeEvents,
  T0,
  type TestService,
  visible,
  WS,
} from './query.test-support.js';

const EVENTS = makeEvents(400, 3);

const test = base.extend<{ ctx: { svc: TestService; disabled: TestService; db: Kysely<LogsDatabase> } }>({
  ctx: [
    async ({ pg }, use) => {
      const database = await openLogsDatabase(pg);
      await storeEvents(database.db, EVENTS);
      await database.db.insertInto('audit_logs').values(AUDIT.map(auditLogRow)).execute();
      const svc = await startService(database.db, { batchRows: 37 });
      const disabled = await startService(database.db, { exportsEnabled: false });
      try {
        await use({ svc, disabled, db: database.db });
      } finally {
        await svc.close();
        await disabled.close();
        await database.close();
      }
    },
    { scope: 'file' },
  ],
});

const AUDIT: AuditEvent[] = Array.from({ length: 60 }, (_, i) =>
  AuditEvent.fromPartial({
    schemaVersion: 1,
    id: `4a000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`,
    occurredAtMs: T0 + i * 60_000,
    organisationId: i % 10 === 9 ? ORG_B : ORG_A,
    workspaceId: i % 3 === 0 ? '' : WS[i % 2]!,
    actor: {
      type: ActorType.API_KEY,
      userId: i % 2 ? 'user-1' : 'user-2',
      apiKeyId: KEYS[i % 4]!,
      displayName: 'k',
    },
    action: ['api_keys.create', 'configs.update', 'workspaces.delete'][i % 3]!,
    resourceType: ['api_key', 'config', 'workspace'][i % 3]!,
    resourceId: `res-${i}`,
    ip: i % 4 === 0 ? '10.0.0.1' : '2001:db8::1',
    requestDetailsJson: i === 1 ? 'not json' : JSON.stringify({ name: `n${i}` }),
    outcome: i % 5 === 0 ? AuditOutcome.FAILURE : AuditOutcome.SUCCESS,
    statusCode: i % 5 === 0 ? 403 : 200,
  }),
);

describe('ListAuditEvents', () => {
  const list = (svc: TestService, partial: Partial<ListAuditEventsRequest>) =>
    call<ListAuditEventsRequest, ListAuditEventsResponse>(
      svc.client.listAuditEvents,
      svc.client,
      ListAuditEventsRequest.fromPartial({
        caller: callerOf(),
        pageSize: 500,
        includeTotal: true,
        ...partial,
      }),
    );
  const ids = (events: readonly AuditEvent[]) =>
    [...events].sort((a, b) => b.occurredAtMs - a.occurredAtMs).map((e) => e.id);
  const inOrgA = AUDIT.filter((e) => e.organisationId === ORG_A);

  const cases: [string, Partial<ListAuditEventsRequest>, (e: AuditEvent) => boolean][] = [
    ['no filter', {}, () => true],
    [
      'time range',
      { fromMs: T0 + 10 * 60_000, toMs: T0 + 30 * 60_000 },
      (e) => e.occurredAtMs >= T0 + 600_000 && e.occurredAtMs < T0 + 1_800_000,
    ],
    ['user', { userIds: ['user-1'] }, (e) => e.actor?.userId === 'user-1'],
    ['API key', { apiKeyIds: [KEYS[2]] }, (e) => e.actor?.apiKeyId === KEYS[2]],
    ['action', { actions: ['configs.update'] }, (e) => e.action === 'configs.update'],
    ['resource type', { resourceType: 'workspace' }, (e) => e.resourceType === 'workspace'],
    ['resource id', { resourceId: 'res-4' }, (e) => e.resourceId === 'res-4'],
    ['workspace', { workspaceIds: [WS[1]] }, (e) => e.workspaceId === WS[1]],
    ['outcome', { outcome: AuditOutcome.FAILURE }, (e) => e.outcome === AuditOutcome.FAILURE],
    ['status code', { statusCodes: [403] }, (e) => e.statusCode === 403],
    ['IP', { ips: ['10.0.0.1'] }, (e) => e.ip === '10.0.0.1'],
  ];
  for (const [name, partial, keep] of cases) {
    test(`filters by ${name}`, async ({ ctx }) => {
      const want = ids(inOrgA.filter(keep));
      expect(want.length).toBeGreaterThan(0);
      const response = await list(ctx.svc, partial);
      expect(response.events.map((e) => e.id)).toEqual(want);
      expect(response.total).toBe(want.length);
    });
  }

  test('workspace callers see their workspace only (not organisation-level records); pages by cursor', async ({
    ctx,
  }) => {
    const caller = callerOf({ allWorkspaces: false, workspaceIds: [WS[0]] });
    const want = ids(inOrgA.filter((e) => e.workspaceId === WS[0]));
    const got: string[] = [];
    let cursor = '';
    do {
      const page = await list(ctx.svc, { caller, pageSize: 4, cursor });
      got.push(...page.events.map((e) => e.id));
      cursor = page.nextCursor;
    } while (cursor !== '');
    expect(got).toEqual(want);
    const none = await list(ctx.svc, { caller: callerOf({ allWorkspaces: false, workspaceIds: [] }) });
    expect(none.events).toEqual([]);
  });

  test('records come back as they were sent', async ({ ctx }) => {
    const response = await list(ctx.svc, { resourceId: 'res-1' });
    expect(response.events).toEqual([AUDIT[1]]);
    const json = await list(ctx.svc, { resourceId: 'res-2' });
    expect(JSON.parse(json.events[0]!.requestDetailsJson)).toEqual({ name: 'n2' });
  });
});

describe('feedback', () => {
  const traceEvent = EVENTS.find((e) => e.organisationId === ORG_A && e.workspaceId === WS[0])!;
  const create = (svc: TestService, partial: Partial<CreateFeedbackRequest>) =>
    call<CreateFeedbackRequest, CreateFeedbackResponse>(
      svc.client.createFeedback,
      svc.client,
      CreateFeedbackRequest.fromPartial({
        caller: callerOf({ allWorkspaces: false, workspaceIds: [WS[0]] }),
        workspaceId: WS[0],
        traceId: traceEvent.traceId,
        value: 5,
        weight: 1,
        ...partial,
      }),
    );

  test('is created, updated, shown on the log and averaged (weighted) in the summary', async ({ ctx }) => {
    const a = await create(ctx.svc, {
      id: '5f000000-0000-4000-8000-000000000001',
      value: 8,
      weight: 0.5,
      metadata: { by: 'qa' },
    });
    expect(a.feedback).toMatchObject({
      traceId: traceEvent.traceId,
      value: 8,
      weight: 0.5,
      metadata: { by: 'qa' },
      workspaceId: WS[0],
    });
    await create(ctx.svc, { id: '5f000000-0000-4000-8000-000000000002', value: -4, weight: 1 });
    const updated = await call<UpdateFeedbackRequest, UpdateFeedbackResponse>(
      ctx.svc.client.updateFeedback,
      ctx.svc.client,
      UpdateFeedbackRequest.fromPartial({
        caller: callerOf(),
        id: '5f000000-0000-4000-8000-000000000002',
        value: -2,
        replaceMetadata: true,
        metadata: { note: 'changed' },
      }),
    );
    expect(updated.feedback).toMatchObject({ value: -2, weight: 1, metadata: { note: 'changed' } });
    expect(updated.feedback!.updatedAtMs).toBeGreaterThanOrEqual(updated.feedback!.createdAtMs);

    const log = await call<GetLogRequest, GetLogResponse>(
      ctx.svc.client.getLog,
      ctx.svc.client,
      GetLogRequest.fromPartial({ caller: callerOf(), id: traceEvent.id }),
    );
    expect(log.log?.feedback.map((f) => [f.value, f.weight])).toEqual([
      [8, 0.5],
      [-2, 1],
    ]);
    const summary = await call<GetSummaryRequest, GetSummaryResponse>(
      ctx.svc.client.getSummary,
      ctx.svc.client,
      GetSummaryRequest.fromPartial({
        caller: callerOf(),
        filter: filterOf({ traceId: traceEvent.traceId }),
      }),
    );
    expect(summary.feedbackCount).toBe(2);
    expect(summary.avgFeedback).toBeCloseTo((8 * 0.5 + -2 * 1) / 1.5, 12);
  });

  test('bad values, an invisible workspace, a taken id and foreign updates are refused', async ({ ctx }) => {
    for (const [partial, code] of [
      [{ id: 'x' }, status.INVALID_ARGUMENT],
      [{ id: '5f000000-0000-4000-8000-0000000000a1', value: 11 }, status.INVALID_ARGUMENT],
      [{ id: '5f000000-0000-4000-8000-0000000000a2', value: -11 }, status.INVALID_ARGUMENT],
      [{ id: '5f000000-0000-4000-8000-0000000000a3', weight: 1.5 }, status.INVALID_ARGUMENT],
      [{ id: '5f000000-0000-4000-8000-0000000000a4', traceId: '' }, status.INVALID_ARGUMENT],
      [{ id: '5f000000-0000-4000-8000-0000000000a5', workspaceId: WS[1] }, status.NOT_FOUND],
    ] as const)
      await expect(create(ctx.svc, partial)).rejects.toMatchObject({ code });
    await create(ctx.svc, { id: '5f000000-0000-4000-8000-0000000000b1' });
    await expect(create(ctx.svc, { id: '5f000000-0000-4000-8000-0000000000b1' })).rejects.toMatchObject({
      code: status.ALREADY_EXISTS,
    });
    const update = (caller: ReturnType<typeof callerOf>) =>
      call(
        ctx.svc.client.updateFeedback,
        ctx.svc.client,
        UpdateFeedbackRequest.fromPartial({ caller, id: '5f000000-0000-4000-8000-0000000000b1', value: 1 }),
      );
    await expect(update(callerOf({ organisationId: ORG_B }))).rejects.toMatchObject({
      code: status.NOT_FOUND,
    });
    await expect(update(callerOf({ allWorkspaces: false, workspaceIds: [WS[1]] }))).rejects.toMatchObject({
      code: status.NOT_FOUND,
    });
    // Restricted to their own keys, a caller changes only the feedback it gave.
    const other = { type: ActorType.API_KEY, userId: '', apiKeyId: KEYS[3], displayName: 'other' };
    await expect(
      update(callerOf({ restrictToApiKeys: true, restrictToApiKeyIds: [KEYS[3]], actor: other })),
    ).rejects.toMatchObject({
      code: status.NOT_FOUND,
    });
    await expect(
      update(callerOf({ restrictToApiKeys: true, restrictToApiKeyIds: [KEYS[0]] })),
    ).resolves.toMatchObject({
      feedback: { value: 1 },
    });
  });
});

describe('feedback belongs to the workspace of its trace', () => {
  const inWs = (traceId: string, ws: string, key?: string) =>
    EVENTS.some(
      (e) =>
        e.organisationId === ORG_A &&
        e.workspaceId === ws &&
        e.traceId === traceId &&
        (key === undefined || e.apiKeyId === key),
    );
  // A trace logged in both workspaces of ORG_A (traces repeat across workspaces and organisations),
  // with some but not every key in WS[0].
  const trace = EVENTS.map((e) => e.traceId).find(
    (t) => inWs(t, WS[1]) && KEYS.some((k) => inWs(t, WS[0], k)) && KEYS.some((k) => !inWs(t, WS[0], k)),
  )!;
  const give = (
    svc: TestService,
    caller: ReturnType<typeof callerOf>,
    partial: Partial<CreateFeedbackRequest>,
  ) =>
    call<CreateFeedbackRequest, CreateFeedbackResponse>(
      svc.client.createFeedback,
      svc.client,
      CreateFeedbackRequest.fromPartial({ caller, traceId: trace, value: 1, weight: 1, ...partial }),
    );
  const ws0 = callerOf({ allWorkspaces: false, workspaceIds: [WS[0]] });
  const ws1 = callerOf({ allWorkspaces: false, workspaceIds: [WS[1]] });

  test('only on a trace the caller sees in that workspace; NOT_FOUND otherwise', async ({ ctx }) => {
    const id = (n: number) => `5f100000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    const refused = [
      // never logged
      [ws0, { id: id(1), workspaceId: WS[0], traceId: 'trace-nowhere' }],
      // another workspace of the organisation, named as the caller's or as the other one
      [ws1, { id: id(2), workspaceId: WS[0] }],
      // another organisation's caller naming ORG_A's workspace and trace
      [
        callerOf({ organisationId: ORG_B, allWorkspaces: false, workspaceIds: [WS[0]] }),
        { id: id(3), workspaceId: WS[0] },
      ],
      // no workspace
      [ws0, { id: id(4), workspaceId: '' }],
    ] as const;
    for (const [caller, partial] of refused)
      await expect(give(ctx.svc, caller, partial)).rejects.toMatchObject({
        code: partial.workspaceId === '' ? status.INVALID_ARGUMENT : status.NOT_FOUND,
      });
    // Restricted to its own keys, a caller sees (and rates) only traces logged with one of them.
    const own = KEYS.find((k) => inWs(trace, WS[0], k))!;
    const foreign = KEYS.find((k) => !inWs(trace, WS[0], k))!;
    await expect(
      give(
        ctx.svc,
        { ...ws0, restrictToApiKeys: true, restrictToApiKeyIds: [foreign] },
        { id: id(5), workspaceId: WS[0] },
      ),
    ).rejects.toMatchObject({ code: status.NOT_FOUND });
    await expect(
      give(
        ctx.svc,
        { ...ws0, restrictToApiKeys: true, restrictToApiKeyIds: [own] },
        { id: id(6), workspaceId: WS[0] },
      ),
    ).resolves.toMatchObject({ feedback: { workspaceId: WS[0], organisationId: ORG_A } });
    const rows = await ctx.db
      .selectFrom('feedback')
      .select('id')
      .where('id', 'in', [id(1), id(2), id(3), id(4), id(5)])
      .execute();
    expect(rows).toEqual([]);
  });

  test('ListFeedback: scope, filters, newest first with cursor paging and total', async ({ ctx }) => {
    const id = (n: number) => `5f200000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    await give(ctx.svc, ws0, { id: id(1), workspaceId: WS[0], value: 3, weight: 0.2 });
    await give(ctx.svc, ws0, { id: id(2), workspaceId: WS[0], value: -5, weight: 1 });
    await give(ctx.svc, ws1, { id: id(3), workspaceId: WS[1], value: 7, weight: 0.6 });
    const list = (caller: ReturnType<typeof callerOf>, partial: Partial<ListFeedbackRequest> = {}) =>
      call<ListFeedbackRequest, ListFeedbackResponse>(
        ctx.svc.client.listFeedback,
        ctx.svc.client,
        ListFeedbackRequest.fromPartial({ caller, traceIds: [trace], ...partial }),
      );
    const ids = (r: ListFeedbackResponse) => r.feedback.map((f) => f.id).filter((f) => f.startsWith('5f2'));
    const all = await list(callerOf(), { includeTotal: true });
    expect(ids(all)).toEqual([id(3), id(2), id(1)]);
    const first = await list(callerOf(), { pageSize: 2, traceIds: [trace], workspaceIds: [WS[0], WS[1]] });
    const rest = await list(callerOf(), {
      pageSize: 2,
      cursor: first.nextCursor,
      workspaceIds: [WS[0], WS[1]],
    });
    expect([...first.feedback, ...rest.feedback].map((f) => f.id).filter((f) => f.startsWith('5f2'))).toEqual(
      ids(all),
    );
    expect(Number(all.total)).toBe(all.feedback.length);
    expect(ids(await list(ws0))).toEqual([id(2), id(1)]);
    expect(ids(await list(ws1))).toEqual([id(3)]);
    expect((await list(callerOf({ organisationId: ORG_B }))).feedback).toEqual([]);
    expect((await list(callerOf({ allWorkspaces: false, workspaceIds: [] }))).feedback).toEqual([]);
    expect(ids(await list(callerOf(), { workspaceIds: [WS[1]] }))).toEqual([id(3)]);
    expect(ids(await list(callerOf(), { value: { min: 0 } }))).toEqual([id(3), id(1)]);
    expect(ids(await list(callerOf(), { value: { min: -5, max: -1 } }))).toEqual([id(2)]);
    expect(ids(await list(callerOf(), { maxWeight: 0.5 }))).toEqual([id(1)]);
    expect(ids(await list(callerOf(), { minWeight: 0.5, maxWeight: 0.9 }))).toEqual([id(3)]);
    expect((await list(callerOf(), { fromMs: Date.now() + 3_600_000 })).feedback).toEqual([]);
    await expect(list(callerOf(), { fromMs: 2, toMs: 1 })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
    });
    // The log of the trace in WS[1] shows WS[1]'s feedback only.
    const logIn = (ws: string) =>
      EVENTS.find((e) => e.organisationId === ORG_A && e.workspaceId === ws && e.traceId === trace)!;
    const shown = await call<GetLogRequest, GetLogResponse>(
      ctx.svc.client.getLog,
      ctx.svc.client,
      GetLogRequest.fromPartial({ caller: callerOf(), id: logIn(WS[1]).id }),
    );
    expect(shown.log?.feedback.map((f) => f.workspaceId)).toEqual(shown.log?.feedback.map(() => WS[1]));
    expect(shown.log?.feedback.map((f) => f.id)).toContain(id(3));
    expect(shown.log?.feedback.map((f) => f.id)).not.toContain(id(1));
  });
});

describe('log exports', () => {
  async function download(
    svc: TestService,
    id: string,
    caller = callerOf(),
  ): Promise<{ text: string; first: DownloadExportResponse }> {
    const chunks: DownloadExportResponse[] = [];
    const stream = svc.client.downloadExport({ caller, id });
    for await (const chunk of stream) chunks.push(chunk as DownloadExportResponse);
    return {
      text: Buffer.concat(chunks.map((c) => Buffer.from(c.data))).toString('utf8'),
      first: chunks[0]!,
    };
  }
  const createExport = (svc: TestService, partial: Partial<CreateExportRequest>) =>
    call<CreateExportRequest, CreateExportResponse>(
      svc.client.createExport,
      svc.client,
      CreateExportRequest.fromPartial({ caller: callerOf(), format: ExportFormat.JSONL, ...partial }),
    );
  const getExport = (svc: TestService, id: string, caller = callerOf()) =>
    call<GetExportRequest, GetExportResponse>(svc.client.getExport, svc.client, { caller, id });

  const filter = filterOf({ aiServices: ['openai'], statusCodes: [200, 201] });
  const want = EVENTS.filter((e) => visible(e, callerOf()) && matches(e, filter)).sort(
    (a, b) => b.receivedAtMs - a.receivedAtMs || (a.id < b.id ? 1 : -1),
  );

  test('JSONL: runs in the background with progress, then downloads every matching row', async ({ ctx }) => {
    const id = '6e000000-0000-4000-8000-000000000001';
    const created = await createExport(ctx.svc, {
      id,
      filter,
      fields: ['id', 'model', 'status_code', 'cost', 'metadata'],
    });
    expect(created.export?.status).toBe(ExportStatus.PENDING);
    ctx.svc.exports.wake();
    await ctx.svc.exports.idle();
    const done = (await getExport(ctx.svc, id)).export!;
    expect(done).toMatchObject({
      status: ExportStatus.SUCCEEDED,
      progress: 1,
      totalRows: want.length,
      exportedRows: want.length,
    });
    expect(done.completedAtMs).toBeGreaterThanOrEqual(done.startedAtMs);
    const { text, first } = await download(ctx.svc, id);
    expect(first.contentType).toBe('application/x-ndjson');
    expect(first.filename).toBe(`logs-${id}.jsonl`);
    expect(done.sizeBytes).toBe(Buffer.byteLength(text));
    const lines = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual(
      want.map((e) => ({
        id: e.id,
        model: e.modelServed || e.modelRequested,
        status_code: e.statusCode,
        cost: (e.cost?.amountMicros ?? 0) / 1e6,
        metadata: e.metadata,
      })),
    );
  });

  test('CSV: a header, one record per row, quoting and formula-safe text', async ({ ctx }) => {
    const id = '6e000000-0000-4000-8000-000000000002';
    await createExport(ctx.svc, {
      id,
      filter,
      format: ExportFormat.CSV,
      fields: ['id', 'trace_id', 'metadata', 'input_tokens'],
    });
    ctx.svc.exports.wake();
    await ctx.svc.exports.idle();
    const { text, first } = await download(ctx.svc, id);
    expect(first.contentType).toBe('text/csv; charset=utf-8');
    const records = text.split('\r\n');
    expect(records.pop()).toBe('');
    expect(records[0]).toBe('id,trace_id,metadata,input_tokens');
    expect(records.slice(1)).toEqual(
      want.map(
        (e) =>
          `${e.id},${e.traceId},"${JSON.stringify(e.metadata).replaceAll('"', '""')}",${e.tokens?.inputTokens}`,
      ),
    );
  });

  test("the export keeps its creator's visibility; others see it by scope; lists page", async ({ ctx }) => {
    const restricted = callerOf({
      allWorkspaces: false,
      workspaceIds: [WS[1]],
      restrictToApiKeys: true,
      restrictToApiKeyIds: [KEYS[1]],
    });
    const id = '6e000000-0000-4000-8000-000000000003';
    await createExport(ctx.svc, { id, caller: restricted, fields: ['id'] });
    ctx.svc.exports.wake();
    await ctx.svc.exports.idle();
    const { text } = await download(ctx.svc, id, restricted);
    const mine = EVENTS.filter((e) => visible(e, restricted))
      .map((e) => e.id)
      .sort();
    expect(
      text
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).id)
        .sort(),
    ).toEqual(mine);
    // Another restricted caller of the same workspace does not see it; the organisation admin does.
    const other = callerOf({
      ...restricted,
      restrictToApiKeyIds: [KEYS[2]],
      actor: { type: ActorType.API_KEY, userId: '', apiKeyId: KEYS[2], displayName: 'x' },
    });
    await expect(getExport(ctx.svc, id, other)).rejects.toMatchObject({ code: status.NOT_FOUND });
    await expect(getExport(ctx.svc, id, callerOf({ organisationId: ORG_B }))).rejects.toMatchObject({
      code: status.NOT_FOUND,
    });
    expect((await getExport(ctx.svc, id)).export?.id).toBe(id);
    const listed = await call<ListExportsRequest, ListExportsResponse>(
      ctx.svc.client.listExports,
      ctx.svc.client,
      ListExportsRequest.fromPartial({ caller: callerOf(), pageSize: 2 }),
    );
    expect(listed.total).toBeGreaterThanOrEqual(3);
    expect(listed.exports).toHaveLength(2);
  });

  test('an export still running cannot be downloaded', async ({ ctx }) => {
    const id = '6e000000-0000-4000-8000-000000000004';
    // Freshly running (its heartbeat is recent, so no runner takes it over).
    await ctx.db
      .insertInto('log_exports')
      .values({
        id,
        organisation_id: ORG_A,
        fields: ['id'],
        format: 'jsonl',
        status: 'running',
        created_by: null,
      })
      .execute();
    await expect(download(ctx.svc, id)).rejects.toMatchObject({ code: status.FAILED_PRECONDITION });
    expect((await getExport(ctx.svc, id)).export?.status).toBe(ExportStatus.RUNNING);
  });

  test('bad fields or format are INVALID_ARGUMENT; DATA_EXPORTS_ENABLED=OFF is PERMISSION_DENIED', async ({
    ctx,
  }) => {
    await expect(createExport(ctx.svc, { id: eventId(9000), fields: ['password'] })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
    });
    await expect(
      createExport(ctx.svc, { id: eventId(9001), format: ExportFormat.UNSPECIFIED }),
    ).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
    await expect(createExport(ctx.disabled, { id: eventId(9002) })).rejects.toMatchObject({
      code: status.PERMISSION_DENIED,
    });
    await expect(getExport(ctx.svc, eventId(9002))).rejects.toMatchObject({ code: status.NOT_FOUND });
  });
});
