// Internal gRPC services are closed by default: the shared-token settings every app spells the same
// way, the startup rule that refuses an open service unless a setting says so in words, and the
// constant-time check a server runs on every call.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Metadata } from '@grpc/grpc-js';
import { z } from 'zod';

/** The only value of a `*_SERVICE_AUTH` setting that turns a token check off: it says what it does. */
export const SERVICE_AUTH_DISABLED = 'disabled-i-understand-the-risk';

/** A shared service token: long enough to be random (`openssl rand -base64 32` gives 44 characters). */
export const serviceToken = z.string().min(32, 'must be at least 32 characters').optional();

/** `token` (the default): callers must present the token. SERVICE_AUTH_DISABLED: anyone who reaches the port is answered. */
export const serviceAuth = z.enum(['token', SERVICE_AUTH_DISABLED]).default('token');

/**
 * Bind address of an internal gRPC service: loopback unless set, so a service is never reachable
 * from other machines by accident. Deployments where other hosts call it (compose, Kubernetes) set
 * it (`0.0.0.0`) together with the token.
 */
export const grpcHost = z.string().min(1).default('127.0.0.1');

export interface ServiceTokenRule {
  /** The setting holding the token, e.g. `SNAPSHOT_SERVICE_TOKEN`. */
  readonly token: string;
  /** The setting that may turn the check off (`<name>=disabled-i-understand-the-risk`); none: it cannot be. */
  readonly off?: string;
  /** Client side: the token is needed only when this setting (the service's address) is set. */
  readonly neededWith?: string;
  /** Why the token is needed, ending the startup message. */
  readonly why: string;
}

/**
 * A settings check refusing to start without the token unless the off switch says so in words, and
 * refusing both at once (the settings would contradict each other). It runs even when other settings
 * are bad, so one start names every problem.
 */
export function requireServiceToken<T extends object>(rule: ServiceTokenRule): z.core.$ZodCheck<T> {
  return z.superRefine<T>(
    (parsed, ctx) => {
      const settings = parsed as Record<string, unknown>;
      if (rule.neededWith !== undefined && settings[rule.neededWith] === undefined) return;
      const hasToken = typeof settings[rule.token] === 'string';
      const disabled = rule.off !== undefined && settings[rule.off] === SERVICE_AUTH_DISABLED;
      if (disabled && hasToken && rule.off !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [rule.off],
          message: `is ${SERVICE_AUTH_DISABLED} while ${rule.token} is set: keep one of the two`,
        });
      } else if (!disabled && !hasToken) {
        const when = rule.neededWith === undefined ? '' : ` with ${rule.neededWith}`;
        const off =
          rule.off === undefined ? '' : `; to run without one, set ${rule.off}=${SERVICE_AUTH_DISABLED}`;
        ctx.addIssue({
          code: 'custom',
          path: [rule.token],
          message: `required${when} (at least 32 characters, e.g. \`openssl rand -base64 32\`): ${rule.why}${off}`,
        });
      }
    },
    { when: () => true },
  );
}

/**
 * The server side of a token: true when the call's metadata holds exactly one
 * `authorization: Bearer <token>`. Digests are compared, so the time taken says nothing about the
 * token, not even its length.
 */
export function bearerTokenCheck(token: string): (metadata: Metadata) => boolean {
  const expected = digest(`Bearer ${token}`);
  return (metadata) => {
    const given = metadata.get('authorization');
    if (given.length !== 1 || typeof given[0] !== 'string') return false;
    return timingSafeEqual(digest(given[0]), expected);
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
