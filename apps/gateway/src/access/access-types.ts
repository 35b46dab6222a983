// The shapes control-plane access hands to the pipeline and to config routing: what a request may
// reach (its route), how config leaves reach managed providers, and what a target's own limits are
// admitted with. Types only, so that the modules producing them and those reading them do not
// import each other.
import type { NormalisedConfig } from '@aigw/config-schema';
import type { LimitSubject } from '../limits/index.js';
import type { Snapshot } from '../snapshot/index.js';
import type { Identity } from './identity.js';
import type { ManagedRef, ManagedRequest, ManagedTarget } from './managed-provider.js';
import type { SavedConfig } from './saved-config.js';

/** The target an attempt calls: its provider type and, when managed, its `@slug` or virtual key. */
export interface TargetOf {
  readonly providerType: string;
  readonly ref: ManagedRef | undefined;
}

export interface TargetLimitScope {
  /** The request's snapshot restricted to target policies (and the prices estimates need). */
  readonly snapshot: Snapshot;
  readonly subject: LimitSubject;
}

export type AccessRoute =
  | { readonly kind: 'config'; readonly config: NormalisedConfig; readonly saved: SavedConfig | undefined }
  | { readonly kind: 'managed'; readonly target: ManagedTarget }
  /** Provider name with the client's own credential (spec 5.1 b and d): the standalone path. */
  | { readonly kind: 'headers' };

/** How config leaves reach managed providers (routing/leaf-target.ts). */
export interface LeafResolver {
  /** The `@slug` or virtual key the request headers named, for leaves that name no provider. */
  readonly fromHeaders: ManagedTarget | undefined;
  /** A leaf's own `provider: "@slug"` or `virtual_key`, in the request's workspace. */
  resolve(request: ManagedRequest): ManagedTarget;
  /**
   * What a config target's own limits are admitted with (auth/target-limits.ts); undefined when
   * nothing depends on the target (no target policy, no own limits of its provider or virtual key).
   */
  targetLimits(target: TargetOf, model: string): TargetLimitScope | undefined;
}

export interface RequestAccess {
  readonly snapshot: Snapshot;
  readonly identity: Identity;
  /** Organisation, workspace and key default metadata under the request's own. */
  readonly metadata: Readonly<Record<string, string>>;
  /** False when the workspace disabled body logging. */
  readonly captureBodies: boolean;
  readonly route: AccessRoute;
  readonly leaves: LeafResolver;
}
