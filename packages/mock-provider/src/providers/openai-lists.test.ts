import { describe, expect, it } from 'vitest';
import { json, OPENAI_AUTH, useMock } from '../../test/helpers.js';
import { BATCH_COUNT, EVENTS_PER_JOB, MOCK_BATCHES } from './openai-lists.js';

const mock = useMock();
const get = async (path: string) => {
  const res = await fetch(`${mock().url}${path}`, { headers: OPENAI_AUTH });
  return { status: res.status, body: await json(res) };
};

describe('GET /v1/batches', () => {
  it('returns the first 20 batches in the spec 2.2 list wrapper by default', async () => {
    const { status, body } = await get('/v1/batches');
    expect(status).toBe(200);
    expect(body.object).toBe('list');
    expect(body.data).toHaveLength(20);
    expect(body.has_more).toBe(true);
    expect(body.first_id).toBe(body.data[0].id);
    expect(body.last_id).toBe(body.data[19].id);
    const batch = body.data[0];
    for (const key of [
      'id',
      'object',
      'endpoint',
      'input_file_id',
      'completion_window',
      'status',
      'created_at',
      'errors',
      'output_file_id',
      'error_file_id',
      'in_progress_at',
      'expires_at',
      'finalizing_at',
      'completed_at',
      'failed_at',
      'expired_at',
      'cancelling_at',
      'cancelled_at',
      'request_counts',
      'metadata',
    ]) {
      expect(batch).toHaveProperty(key);
    }
    expect(batch.object).toBe('batch');
    expect(Object.keys(batch.request_counts).sort()).toEqual(['completed', 'failed', 'total']);
    const failed = body.data.find((b: { status: string }) => b.status === 'failed');
    expect(failed.errors.data[0]).toMatchObject({
      code: expect.any(String),
      message: expect.any(String),
      line: 1,
    });
    expect(body.data.some((b: { status: string }) => b.status === 'validating')).toBe(true);
  });

  it('pages with after and limit until has_more is false, visiting every batch once', async () => {
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const { body } = await get(`/v1/batches?limit=7${after ? `&after=${after}` : ''}`);
      seen.push(...body.data.map((b: { id: string }) => b.id));
      if (!body.has_more) break;
      after = body.last_id;
    }
    expect(seen).toEqual(MOCK_BATCHES.map((b) => b.id));
    expect(seen).toHaveLength(BATCH_COUNT);
    const created = MOCK_BATCHES.map((b) => b.created_at);
    expect([...created].sort((a, b) => b - a)).toEqual(created);
  });

  it('accepts limit 1 and 100 and rejects 0, 101 and non-integers with a 400', async () => {
    expect((await get('/v1/batches?limit=1')).body.data).toHaveLength(1);
    const all = await get('/v1/batches?limit=100');
    expect(all.body.data).toHaveLength(BATCH_COUNT);
    expect(all.body.has_more).toBe(false);
    for (const [limit, code] of [
      ['0', 'integer_below_min_value'],
      ['101', 'integer_above_max_value'],
      ['abc', 'invalid_type'],
    ]) {
      const { status, body } = await get(`/v1/batches?limit=${limit}`);
      expect(status).toBe(400);
      expect(body.error).toMatchObject({ type: 'invalid_request_error', param: 'limit', code });
    }
  });

  it('returns an empty page after an unknown id and retrieves one batch by id', async () => {
    const { body } = await get('/v1/batches?after=batch_unknown');
    expect(body).toEqual({ object: 'list', data: [], has_more: false, first_id: null, last_id: null });
    expect((await get('/v1/batches/batch_mock_003')).body).toEqual(MOCK_BATCHES[2]);
    expect((await get('/v1/batches/batch_nope')).status).toBe(404);
  });
});

describe('GET /v1/fine_tuning/jobs/{id}/events', () => {
  it('lists events in the spec 2.4 shape and pages with after and limit', async () => {
    const first = await get('/v1/fine_tuning/jobs/ftjob-abc/events?limit=10');
    expect(first.status).toBe(200);
    expect(first.body.object).toBe('list');
    expect(first.body.data).toHaveLength(10);
    expect(first.body.has_more).toBe(true);
    for (const event of first.body.data) {
      expect(Object.keys(event).sort()).toEqual(['created_at', 'id', 'level', 'message', 'object']);
      expect(event).toMatchObject({ object: 'fine_tuning.job.event', level: 'info' });
    }
    const rest = await get(`/v1/fine_tuning/jobs/ftjob-abc/events?limit=100&after=${first.body.data[9].id}`);
    expect(rest.body.data).toHaveLength(EVENTS_PER_JOB - 10);
    expect(rest.body.has_more).toBe(false);
    expect(rest.body.data.at(-1).message).toBe('Created fine-tuning job');
    const defaults = await get('/v1/fine_tuning/jobs/ftjob-abc/events');
    expect(defaults.body.data).toHaveLength(20);
    const other = await get('/v1/fine_tuning/jobs/ftjob-other/events?limit=1');
    expect(other.body.data[0].id).not.toBe(first.body.data[0].id);
  });

  it('rejects a bad limit and unknown job ids', async () => {
    expect((await get('/v1/fine_tuning/jobs/ftjob-abc/events?limit=0')).status).toBe(400);
    const missing = await get('/v1/fine_tuning/jobs/nope/events');
    expect(missing.status).toBe(404);
    expect(missing.body.error.type).toBe('invalid_request_error');
  });
});
