// The rate limits, usage limits and expiry a key or provider form edits, and the request fields
// they become. Values go to the API as typed (a blank number is sent as 0): the API validates them
// and its error is shown by the limits field it names.

export type RateType = 'requests' | 'tokens';
export type RateUnit = 'rpm' | 'rph' | 'rpd';
export type UsageType = 'cost' | 'tokens';
export type Reset = '' | 'weekly' | 'monthly';

export interface RateLimitRow {
  readonly type: RateType;
  readonly unit: RateUnit;
  readonly value: string;
}

export interface UsageLimitRow {
  readonly type: UsageType;
  readonly credit_limit: string;
  readonly alert_threshold: string;
  readonly periodic_reset: Reset;
}

export interface LimitsState {
  readonly rate: readonly RateLimitRow[];
  readonly usage: readonly UsageLimitRow[];
  /** A `datetime-local` value (the browser's time zone), '' for none. */
  readonly expiresAt: string;
}

export const NO_LIMITS: LimitsState = { rate: [], usage: [], expiresAt: '' };

export interface LimitsBody {
  rate_limits?: { type: RateType; unit: RateUnit; value: number }[];
  usage_limits?: {
    type: UsageType;
    credit_limit: number;
    alert_threshold?: number;
    periodic_reset?: 'weekly' | 'monthly';
  }[];
  expires_at?: string;
}

function toNumber(text: string): number {
  const value = Number(text.trim());
  return Number.isFinite(value) ? value : 0;
}

/** A local date-time ('2031-05-01T12:00') as an ISO instant with offset, as the API wants it. */
export function localToIso(local: string): string | undefined {
  if (local.trim() === '') return undefined;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? local : date.toISOString();
}

/** An ISO instant as a `datetime-local` value in the browser's time zone. */
export function isoToLocal(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** The limits part of a create body: fields left empty are omitted. */
export function limitsBody(state: LimitsState): LimitsBody {
  const body: LimitsBody = {};
  if (state.rate.length > 0)
    body.rate_limits = state.rate.map((row) => ({
      type: row.type,
      unit: row.unit,
      value: toNumber(row.value),
    }));
  if (state.usage.length > 0)
    body.usage_limits = state.usage.map((row) => ({
      type: row.type,
      credit_limit: toNumber(row.credit_limit),
      ...(row.alert_threshold.trim() === '' ? {} : { alert_threshold: toNumber(row.alert_threshold) }),
      ...(row.periodic_reset === '' ? {} : { periodic_reset: row.periodic_reset }),
    }));
  const expires = localToIso(state.expiresAt);
  if (expires !== undefined) body.expires_at = expires;
  return body;
}

/** The form state of limits an object already has (for editing). */
export function limitsState(object: {
  rate_limits: readonly { type: RateType; unit: RateUnit; value: number }[];
  usage_limits: readonly {
    type: UsageType;
    credit_limit: number;
    alert_threshold?: number | null;
    periodic_reset?: 'weekly' | 'monthly' | null;
  }[];
  expires_at?: string | null;
}): LimitsState {
  return {
    rate: object.rate_limits.map((l) => ({ type: l.type, unit: l.unit, value: String(l.value) })),
    usage: object.usage_limits.map((l) => ({
      type: l.type,
      credit_limit: String(l.credit_limit),
      alert_threshold: l.alert_threshold == null ? '' : String(l.alert_threshold),
      periodic_reset: l.periodic_reset ?? '',
    })),
    expiresAt: isoToLocal(object.expires_at),
  };
}

/** "60 requests/min", "25 USD monthly (alert at 20)". */
export function describeRate(limit: { type: RateType; unit: RateUnit; value: number }): string {
  const per = { rpm: 'min', rph: 'hour', rpd: 'day' }[limit.unit];
  return `${limit.value} ${limit.type}/${per}`;
}

export function describeUsage(limit: {
  type: UsageType;
  credit_limit: number;
  alert_threshold?: number | null;
  periodic_reset?: 'weekly' | 'monthly' | null;
  periodic_reset_days?: number | null;
  current_usage?: number;
}): string {
  const unit = limit.type === 'cost' ? 'USD' : 'tokens';
  const reset =
    limit.periodic_reset ??
    (limit.periodic_reset_days ? `every ${limit.periodic_reset_days} days` : 'no reset');
  const used = limit.current_usage === undefined ? '' : `${limit.current_usage} of `;
  const alert = limit.alert_threshold == null ? '' : ` (alert at ${limit.alert_threshold})`;
  return `${used}${limit.credit_limit} ${unit}, ${reset}${alert}`;
}
