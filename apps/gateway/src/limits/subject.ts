// What the limits engine knows of a request: the attributes policies match and group on, and the
// snapshot entities whose own rate_limits / usage_limits apply to it.
import type { Entity, RateLimit, UsageLimit } from '@aigw/proto';

/** An integration's per-workspace settings, as the integration entity holds them. */
export interface IntegrationWorkspaceLimits {
  readonly integrationId: string;
  readonly workspaceId: string;
  readonly rateLimits: readonly RateLimit[];
  readonly usageLimits: readonly UsageLimit[];
}

export interface LimitSubject {
  readonly organisationId: string;
  readonly workspaceId: string;
  /** Id of the calling API key ('' when none, e.g. a standalone gateway). */
  readonly apiKeyId: string;
  /** The `provider` policy value: the managed provider's slug (no `@`), else the provider type. */
  readonly provider: string;
  /** Provider type (`openai`, `anthropic`...) for pricing; empty or absent: `provider` is used. */
  readonly providerType?: string;
  readonly model: string;
  /** Saved config id, '' when none; `config` conditions also match `configSlug`. */
  readonly configId: string;
  readonly configSlug?: string;
  /** Legacy virtual key id, '' when none; `virtual_key` conditions also match `virtualKeySlug`. */
  readonly virtualKeyId: string;
  readonly virtualKeySlug?: string;
  /** The request's metadata after workspace and key defaults were merged in. */
  readonly metadata: Readonly<Record<string, string>>;
  /** Entities whose own limits apply (group = the entity). Any may be absent. */
  readonly apiKey?: Entity;
  readonly workspace?: Entity;
  /** The managed provider (`@slug`); named apart from `provider`, which is the matched value. */
  readonly providerEntity?: Entity;
  readonly integration?: Entity;
  readonly virtualKey?: Entity;
  readonly integrationWorkspace?: IntegrationWorkspaceLimits;
}
