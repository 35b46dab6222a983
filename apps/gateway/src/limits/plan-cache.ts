// The limit plan templates of one process, per snapshot and per subject: building a plan matches
// every policy of the organisation and hashes group values, while a busy key sends the same subject
// again and again. A template is exact for every request whose subject has the same values for all
// that the plan reads (the matched keys, the entities, and the metadata keys the organisation's
// policies name); time is applied per request (instantiate), so periods still roll over.
import { EntityKind } from '@aigw/proto';
import type { Snapshot } from '../snapshot/index.js';
import { type PlanFlags, type PlanTemplate, planTemplate } from './plan.js';
import type { LimitSubject } from './subject.js';

/** Templates kept per snapshot; past this the cache starts afresh (a bound, not an LRU). */
const MAX_TEMPLATES = 10_000;
const METADATA = 'metadata.';

interface Cached {
  readonly template: PlanTemplate;
  /** The entities it was built from: a subject carrying other objects is rebuilt, never trusted. */
  readonly refs: readonly unknown[];
}

interface SnapshotPlans {
  /** Per organisation: the metadata keys its policies name in conditions or group_by. */
  readonly metadataKeys: Map<string, readonly string[]>;
  readonly templates: Map<string, Cached>;
}

export type PlanCache = (snapshot: Snapshot, subject: LimitSubject) => PlanTemplate;

export function createPlanCache(flags: PlanFlags): PlanCache {
  const bySnapshot = new WeakMap<Snapshot, SnapshotPlans>();
  return (snapshot, subject) => {
    let plans = bySnapshot.get(snapshot);
    if (!plans) {
      plans = { metadataKeys: new Map(), templates: new Map() };
      bySnapshot.set(snapshot, plans);
    }
    let metadataKeys = plans.metadataKeys.get(subject.organisationId);
    if (!metadataKeys) {
      metadataKeys = policyMetadataKeys(snapshot, subject.organisationId);
      plans.metadataKeys.set(subject.organisationId, metadataKeys);
    }
    const key = subjectKey(subject, metadataKeys);
    const hit = plans.templates.get(key);
    if (hit && sameRefs(hit.refs, subject)) return hit.template;
    const template = planTemplate(snapshot, subject, flags);
    if (plans.templates.size >= MAX_TEMPLATES) plans.templates.clear();
    plans.templates.set(key, { template, refs: subjectRefs(subject) });
    return template;
  };
}

/** Every `metadata.<k>` an organisation's policies read (any status or workspace: a superset is exact). */
function policyMetadataKeys(snapshot: Snapshot, organisationId: string): readonly string[] {
  const keys = new Set<string>();
  for (const kind of [EntityKind.RATE_LIMIT_POLICY, EntityKind.USAGE_LIMIT_POLICY]) {
    for (const policy of snapshot.ofOrganisation(kind, organisationId)) {
      const body = policy.body;
      if (body?.$case !== 'rateLimitPolicy' && body?.$case !== 'usageLimitPolicy') continue;
      for (const { key } of [...body.value.conditions, ...body.value.groupBy]) {
        if (key.startsWith(METADATA) && key.length > METADATA.length) keys.add(key.slice(METADATA.length));
      }
    }
  }
  return [...keys].sort();
}

/**
 * Every subject value the plan reads, each length-prefixed so that no two subjects share a key
 * whatever their values hold. A missing metadata value and an empty one are the same to policies.
 */
export function subjectKey(subject: LimitSubject, metadataKeys: readonly string[]): string {
  const iw = subject.integrationWorkspace;
  let key = '';
  const add = (value: string | undefined) => {
    const v = value ?? '';
    key += `${v.length}:${v}`;
  };
  add(subject.organisationId);
  add(subject.workspaceId);
  add(subject.apiKeyId);
  add(subject.provider);
  add(subject.model);
  add(subject.configId);
  add(subject.configSlug);
  add(subject.virtualKeyId);
  add(subject.virtualKeySlug);
  add(subject.apiKey?.id);
  add(subject.workspace?.id);
  add(subject.providerEntity?.id);
  add(subject.integration?.id);
  add(subject.virtualKey?.id);
  add(iw?.integrationId);
  add(iw?.workspaceId);
  const metadata = subject.metadata;
  for (const name of metadataKeys) add(Object.hasOwn(metadata, name) ? metadata[name] : undefined);
  return key;
}

function subjectRefs(subject: LimitSubject): unknown[] {
  const iw = subject.integrationWorkspace;
  return [
    subject.apiKey,
    subject.workspace,
    subject.providerEntity,
    subject.integration,
    subject.virtualKey,
    iw?.rateLimits,
    iw?.usageLimits,
  ];
}

function sameRefs(refs: readonly unknown[], subject: LimitSubject): boolean {
  const iw = subject.integrationWorkspace;
  return (
    refs[0] === subject.apiKey &&
    refs[1] === subject.workspace &&
    refs[2] === subject.providerEntity &&
    refs[3] === subject.integration &&
    refs[4] === subject.virtualKey &&
    refs[5] === iw?.rateLimits &&
    refs[6] === iw?.usageLimits
  );
}
