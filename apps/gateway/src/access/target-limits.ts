// Limits of a config target (docs/limits.md, "Config targets"): the subject a target's own admission
// uses, and the snapshot view it reads policies from, so that it charges only what depends on the
// target and never what the request-level admission already charged.
import type { Entity } from '@aigw/proto';
import { EntityKind } from '@aigw/proto';
import type { LimitSubject } from '../limits/index.js';
import { Snapshot } from '../snapshot/index.js';
import type { RequestAccess, TargetLimitScope, TargetOf } from './access-types.js';
import { limitSubject } from './limit-subject.js';

/**
 * Policy condition keys whose value is the target's: such policies are decided per target. The
 * model is the target's too: a target may send another model than the body names (its
 * `override_params.model`, or the model a managed Azure deployment serves).
 */
const TARGET_KEYS: ReadonlySet<string> = new Set(['provider', 'virtual_key', 'model']);

/**
 * The target's admission, or undefined when nothing depends on the target (no target policy and no
 * own limits of its provider, integration or virtual key). The request-level admission of a config
 * request names no provider (limit-subject.ts), so every target, the headers' `@slug` too, is
 * admitted here and nowhere else.
 */
export function targetLimitScope(
  access: RequestAccess,
  target: TargetOf,
  model: string,
): TargetLimitScope | undefined {
  const request = limitSubject(access, '', model);
  const ref = target.ref;
  const provider = ref?.slug || target.providerType;
  const virtualKeyId = ref?.virtualKeyId ?? '';
  const view = targetPolicyView(access.snapshot, request.organisationId);
  const iw = ref?.integrationWorkspace;
  // Nothing to decide: no admission, no Redis call, and no usage to read from the answer.
  if (
    !view.policies &&
    !hasOwnLimits(ref?.provider) &&
    !hasOwnLimits(ref?.integration) &&
    !hasOwnLimits(ref?.virtualKey) &&
    !(iw && iw.rateLimits.length + iw.usageLimits.length > 0)
  ) {
    return undefined;
  }
  const subject: LimitSubject = {
    organisationId: request.organisationId,
    workspaceId: request.workspaceId,
    apiKeyId: request.apiKeyId,
    provider,
    providerType: target.providerType,
    model,
    configId: request.configId,
    ...(request.configSlug === undefined ? {} : { configSlug: request.configSlug }),
    virtualKeyId,
    ...(ref?.virtualKeySlug ? { virtualKeySlug: ref.virtualKeySlug } : {}),
    metadata: request.metadata,
    // No apiKey / workspace entities: their own limits do not depend on the target.
    ...(ref?.provider ? { providerEntity: ref.provider } : {}),
    ...(ref?.integration ? { integration: ref.integration } : {}),
    ...(ref?.virtualKey ? { virtualKey: ref.virtualKey } : {}),
    ...(iw && ref?.integration
      ? {
          integrationWorkspace: {
            integrationId: ref.integration.id,
            workspaceId: iw.workspaceId,
            rateLimits: iw.rateLimits,
            usageLimits: iw.usageLimits,
          },
        }
      : {}),
  };
  return { snapshot: view.snapshot, subject };
}

function hasOwnLimits(entity: Entity | undefined): boolean {
  const body = entity?.body;
  if (body?.$case !== 'provider' && body?.$case !== 'integration' && body?.$case !== 'virtualKey') {
    return false;
  }
  return body.value.rateLimits.length + body.value.usageLimits.length > 0;
}

const POLICY_KINDS = [EntityKind.RATE_LIMIT_POLICY, EntityKind.USAGE_LIMIT_POLICY] as const;

export interface TargetPolicyView {
  readonly snapshot: Snapshot;
  /** Whether it holds any target policy (none: only entity limits can apply to a target). */
  readonly policies: boolean;
}

/** Per snapshot (immutable), per organisation: the views target and config-request admissions read. */
const views = new WeakMap<Snapshot, Map<string, { target: TargetPolicyView; request: Snapshot }>>();

/**
 * The organisation's policies that depend on the target (a `provider`, `virtual_key` or `model`
 * condition, or grouped by `model`), and the prices (the organisation's and the platform's) cost
 * estimates read. Built once per snapshot: the limits engine reads policies and prices from the
 * snapshot it is given, and nothing else.
 */
export function targetPolicyView(snapshot: Snapshot, organisationId: string): TargetPolicyView {
  return viewsOf(snapshot, organisationId).target;
}

/**
 * What the request-level admission of a config request reads: the organisation's other policies
 * and the prices, so that a policy decided per target is never also charged for the request.
 */
export function configRequestView(snapshot: Snapshot, organisationId: string): Snapshot {
  return viewsOf(snapshot, organisationId).request;
}

function viewsOf(snapshot: Snapshot, organisationId: string) {
  let byOrg = views.get(snapshot);
  if (!byOrg) {
    byOrg = new Map();
    views.set(snapshot, byOrg);
  }
  let pair = byOrg.get(organisationId);
  if (!pair) {
    const target: Entity[] = [];
    const request: Entity[] = [];
    for (const kind of POLICY_KINDS) {
      for (const policy of snapshot.ofOrganisation(kind, organisationId)) {
        (dependsOnTarget(policy) ? target : request).push(policy);
      }
    }
    const policies = target.length > 0;
    for (const org of new Set(['', organisationId])) {
      const prices = snapshot.ofOrganisation(EntityKind.MODEL_PRICING, org);
      target.push(...prices);
      request.push(...prices);
    }
    pair = {
      target: { snapshot: Snapshot.of(target, snapshot.revision, snapshot.builtAtMs), policies },
      // Nothing to leave out: the request reads the snapshot itself, no copy.
      request: policies ? Snapshot.of(request, snapshot.revision, snapshot.builtAtMs) : snapshot,
    };
    byOrg.set(organisationId, pair);
  }
  return pair;
}

/** A condition on a target's value, or counters grouped by the model (the target's too). */
function dependsOnTarget(policy: Entity): boolean {
  const body = policy.body;
  if (body?.$case !== 'rateLimitPolicy' && body?.$case !== 'usageLimitPolicy') return false;
  return (
    body.value.conditions.some((c) => TARGET_KEYS.has(c.key)) ||
    body.value.groupBy.some((g) => g.key === 'model')
  );
}
