// OpenAI cursor lists: batches (spec 2.2) and fine-tuning job events (spec 2.4), `after` + `limit`.
import { createHash } from 'node:crypto';
import type { RouteContext } from '../context.js';
import { openaiError, type ProviderError } from '../errors.js';
import { sendError, sendJson } from '../http-io.js';

/** Fixed fake data: 45 batches, 25 events per job, so the default limit of 20 always pages. */
export const BATCH_COUNT = 45;
export const EVENTS_PER_JOB = 25;
const BASE_TIME = 1_735_689_600; // 2025-01-01T00:00:00Z

/** `limit` in 1..100, default 20, with OpenAI's own 400 messages. */
export function parseLimit(raw: string | null): number | ProviderError {
  if (raw === null) return 20;
  const invalid = (message: string, code: string) =>
    openaiError(400, `Invalid 'limit': ${message}`, 'invalid_request_error', code, 'limit');
  if (!/^-?\d+$/.test(raw)) return invalid(`expected an integer, but got '${raw}' instead.`, 'invalid_type');
  const n = Number(raw);
  if (n < 1)
    return invalid(
      `integer below minimum value. Expected a value >= 1, but got ${n} instead.`,
      'integer_below_min_value',
    );
  if (n > 100)
    return invalid(
      `integer above maximum value. Expected a value <= 100, but got ${n} instead.`,
      'integer_above_max_value',
    );
  return n;
}

/** The page that starts right after the item with id `after` (an unknown id gives an empty page). */
export function pageAfter<T extends { id: string }>(
  items: readonly T[],
  after: string | null,
  limit: number,
) {
  const start = after === null ? 0 : items.findIndex((item) => item.id === after) + 1;
  const data = start === 0 && after !== null ? [] : items.slice(start, start + limit);
  return { data, has_more: data.length > 0 && start + limit < items.length };
}

const STATUSES = [
  'completed',
  'in_progress',
  'validating',
  'failed',
  'finalizing',
  'expired',
  'cancelling',
  'cancelled',
] as const;

function batch(i: number) {
  const status = STATUSES[(i - 1) % STATUSES.length]!;
  const created = BASE_TIME - i * 3600;
  const at = (applies: boolean, offset: number) => (applies ? created + offset : null);
  const total = 10 * i;
  const failed = status === 'failed' ? total : status === 'completed' ? 1 : 0;
  const completed =
    status === 'completed' ? total - failed : status === 'in_progress' ? Math.floor(total / 2) : 0;
  return {
    id: `batch_mock_${String(i).padStart(3, '0')}`,
    object: 'batch',
    endpoint: '/v1/chat/completions',
    errors:
      status === 'failed'
        ? {
            object: 'list',
            data: [
              {
                code: 'invalid_json_line',
                message: 'This line is not parseable as valid JSON.',
                param: null,
                line: 1,
              },
            ],
          }
        : null,
    input_file_id: `file-mock-input-${i}`,
    completion_window: '24h',
    status,
    output_file_id: status === 'completed' ? `file-mock-output-${i}` : null,
    error_file_id: status === 'completed' || status === 'failed' ? `file-mock-errors-${i}` : null,
    created_at: created,
    in_progress_at: at(status !== 'validating' && status !== 'failed', 60),
    expires_at: created + 86_400,
    finalizing_at: at(status === 'finalizing' || status === 'completed', 1800),
    completed_at: at(status === 'completed', 1900),
    failed_at: at(status === 'failed', 30),
    expired_at: at(status === 'expired', 86_400),
    cancelling_at: at(status === 'cancelling' || status === 'cancelled', 120),
    cancelled_at: at(status === 'cancelled', 180),
    request_counts: { total, completed, failed },
    metadata: { mock_index: String(i) },
  };
}

/** Newest first, as OpenAI lists them. */
export const MOCK_BATCHES = Object.freeze(Array.from({ length: BATCH_COUNT }, (_, i) => batch(i + 1)));

export function handleListBatches(ctx: RouteContext): void {
  const limit = parseLimit(ctx.query.get('limit'));
  if (typeof limit !== 'number') {
    sendError(ctx, limit);
    return;
  }
  const { data, has_more } = pageAfter(MOCK_BATCHES, ctx.query.get('after'), limit);
  sendJson(ctx, 200, {
    object: 'list',
    data,
    has_more,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
  });
}

export function handleGetBatch(ctx: RouteContext): void {
  const found = MOCK_BATCHES.find((b) => b.id === ctx.params.id);
  if (!found) {
    sendError(ctx, openaiError(404, `No batch found with id '${ctx.params.id}'.`, 'invalid_request_error'));
    return;
  }
  sendJson(ctx, 200, found);
}

/** Events of one job, newest first; ids derive from the job id so they are stable. */
export function jobEvents(jobId: string) {
  const tag = createHash('sha256').update(jobId).digest('hex').slice(0, 8);
  return Array.from({ length: EVENTS_PER_JOB }, (_, i) => {
    const step = EVENTS_PER_JOB - i;
    return {
      object: 'fine_tuning.job.event' as const,
      id: `ftevent-${tag}${String(step).padStart(3, '0')}`,
      created_at: BASE_TIME + step * 60,
      level: 'info',
      message:
        step === 1
          ? 'Created fine-tuning job'
          : `Step ${step - 1}/${EVENTS_PER_JOB - 1}: training loss=${(1 / step).toFixed(4)}`,
    };
  });
}

export function handleJobEvents(ctx: RouteContext): void {
  const jobId = ctx.params.id ?? '';
  if (!jobId.startsWith('ftjob-')) {
    sendError(
      ctx,
      openaiError(
        404,
        `Could not find fine tune job: ${jobId}.`,
        'invalid_request_error',
        'fine_tune_not_found',
      ),
    );
    return;
  }
  const limit = parseLimit(ctx.query.get('limit'));
  if (typeof limit !== 'number') {
    sendError(ctx, limit);
    return;
  }
  const { data, has_more } = pageAfter(jobEvents(jobId), ctx.query.get('after'), limit);
  sendJson(ctx, 200, { object: 'list', data, has_more });
}
