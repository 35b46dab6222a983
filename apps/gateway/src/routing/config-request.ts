// The request a config runs on, as the gateway read it once: what every leaf call, retry and
// fallback sends again, with the client's headers, metadata and cache headers.
import type { IncomingHttpHeaders } from 'node:http';
import type { CacheHeaders } from './cache-headers.js';
import type { HeaderProvider } from './leaf-target.js';
import type { TargetAdmissions } from './target-admissions.js';

/** The request as the gateway read it (once) for a config. */
export interface ConfigRequest {
  readonly method: string;
  /** Below `/v1`, without the query. */
  readonly path: string;
  /** `?...` or ''. */
  readonly search: string;
  readonly headers: IncomingHttpHeaders;
  readonly headerProvider: HeaderProvider;
  readonly metadata: Readonly<Record<string, string>>;
  readonly cacheHeaders: CacheHeaders;
  /**
   * Whose cache entries the request may read and write: its workspace in control-plane mode, ''
   * standalone (one tenant). Two scopes never share an entry (cache/cache-key.ts).
   */
  readonly cacheScope: string;
  readonly body: Buffer;
  /** The parsed body when it is JSON. */
  readonly json: unknown;
  /** Aborted when the client went away. */
  readonly signal: AbortSignal;
  /** Control-plane mode with limits: each call of a target admits that target's own limits. */
  readonly targetLimits?: TargetAdmissions | undefined;
}
