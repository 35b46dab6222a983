// Usage an object reports whenever it is read (a batch, a background Response: formats'
// `chargedOnce`) is charged once per organisation: the first answer that shows it claims its id, and
// every later one (a second retrieval, on any replica) is a repeat, reported and charged as none.
// Claims live in Redis when the gateway has it (SET NX, shared by replicas), else in this process;
// a Redis that does not answer falls back to this process too, so an object is charged at least
// once and at most once per replica, never not at all.
import type { Logger } from '@aigw/runtime';
import type { Redis } from 'ioredis';
import type { ResponseFacts } from '../upstream/usage.js';
import type { RequestContext } from './request-context.js';

/** Batch outputs and stored Responses are kept 30 days by default: a claim outlives them. */
const CLAIM_TTL_S = 45 * 86_400;
/** Claims remembered in this process (oldest dropped first). */
const LOCAL_CLAIMS = 100_000;

export interface UsageClaims {
  /** True for the first claim of `id` in the organisation, false for every later one. */
  claim(organisationId: string, id: string): Promise<boolean>;
}

export function createUsageClaims(redis: Redis | undefined, log: Logger): UsageClaims {
  const local = new Set<string>();
  const claimLocally = (key: string): boolean => {
    if (local.has(key)) return false;
    if (local.size >= LOCAL_CLAIMS) local.delete(local.values().next().value as string);
    local.add(key);
    return true;
  };
  return {
    async claim(organisationId, id) {
      // The organisation in a hash tag, as the limits' keys (docs/limits.md "Redis keys").
      const key = `lim:{${organisationId}}:once:${id}`;
      if (redis?.status !== 'ready') return claimLocally(key);
      try {
        return (await redis.set(key, '1', 'EX', CLAIM_TTL_S, 'NX')) === 'OK';
      } catch (err) {
        log.warn({ err: err instanceof Error ? err.message : String(err) }, 'usage claim without Redis');
        return claimLocally(key);
      }
    },
  };
}

/**
 * The facts as charged and reported: unchanged unless their usage is an object's that is charged
 * once and an earlier answer claimed it. One claim per request and object (settle, the request
 * event and a config's target limits all read the same answer).
 */
export function claimedFacts(
  ctx: RequestContext,
  claims: UsageClaims,
  facts: ResponseFacts,
): ResponseFacts | Promise<ResponseFacts> {
  const id = facts.chargedOnce;
  if (id === undefined || facts.usage === undefined) return facts;
  ctx.usageClaims ??= new Map();
  let won = ctx.usageClaims.get(id);
  if (!won) {
    won = claims.claim(ctx.access?.identity.organisation.id ?? '', id);
    ctx.usageClaims.set(id, won);
  }
  return won.then((first) => (first ? facts : { usage: undefined, model: facts.model }));
}
