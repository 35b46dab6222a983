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

/** The last subject of a caller and its template: the next request of that caller is usually the same. */
interface Recent {
  readonly subject: LimitSubject;
  readonly metadataKeys: readonly string[];
  readonly template: PlanTemplate;
}

interface SnapshotPlans {
  /** Per organisation: the metadata keys its policies name in conditions or group_by. */
  readonly metadataKeys: Map<string, readonly string[]>;
  readonly templates: Map<string, Cached>;
  /**
   * Per caller (its API key entity, else its workspace entity, objects of this snapshot): the last
   * subject. A request whose subject has the same values (sameSubject) takes its template without
   * building the subject key, a string of every value whose hash each lookup would compute again.
   */
  readonly recent: WeakMap<object, Recent>;
}

export type PlanCache = (snapshot: Snapshot, subject: LimitSubject) => PlanTemplate;

export function createPlanCache(flags: PlanFlags): PlanCache {
  const bySnapshot = new WeakMap<Snapshot, SnapshotPlans>();
  return (snapshot, subject) => {
    let plans = bySnapshot.get(snapshot);
    if (!plans) {
      plans = { metadataKeys: new Map(), templates: new Map(), recent: new WeakMap() };
      bySnapshot.set(snapshot, plans);
    }
    const anchor: object | undefined = subject.apiKey ?? subject.workspace;
    const recent = anchor ? plans.recent.get(anchor) : undefined;
    if (recent && sameSubject(recent.subject, subject, recent.metadataKeys)) return recent.template;
    let metadataKeys = plans.metadataKeys.get(subject.organisationId);
    if (!metadataKeys) {
      metadataKeys = policyMetadataKeys(snapshot, subject.organisationId);
      plans.metadataKeys.set(subject.organisationId, metadataKeys);
    }
    const key = subjectKey(subject, metadataKeys);
    const hit = plans.templates.get(key);
    let template: PlanTemplate;
    if (hit && sameRefs(hit.refs, subject)) template = hit.template;
    else {
      template = planTemplate(snapshot, subject, flags);
      if (plans.templates.size >= MAX_TEMPLATES) plans.templates.clear();
      plans.templates.set(key, { template, refs: subjectRefs(subject) });
    }
    if (anchor) plans.recent.set(anchor, { subject, metadataKeys, template });
    return template;
  };
}

/**
 * True when `b` has every value subjectKey reads equal to `a`'s (a missing value and '' alike, as
 * there) and the same entity objects (sameRefs): then both have the same key and the same template.
 * `metadataKeys` are `a`'s organisation's; `b` is of the same organisation when its values are equal.
 */
export function sameSubject(a: LimitSubject, b: LimitSubject, metadataKeys: readonly string[]): boolean {
  if (
    a.organisationId !== b.organisationId ||
    a.workspaceId !== b.workspaceId ||
    a.apiKeyId !== b.apiKeyId ||
    a.provider !== b.provider ||
    a.model !== b.model ||
    a.configId !== b.configId ||
    (a.configSlug ?? '') !== (b.configSlug ?? '') ||
    a.virtualKeyId !== b.virtualKeyId ||
    (a.virtualKeySlug ?? '') !== (b.virtualKeySlug ?? '') ||
    (a.integrationWorkspace?.integrationId ?? '') !== (b.integrationWorkspace?.integrationId ?? '') ||
    (a.integrationWorkspace?.workspaceId ?? '') !== (b.integrationWorkspace?.workspaceId ?? '') ||
    // The same entity objects (so the same ids), as sameRefs checks a cached template's.
    a.apiKey !== b.apiKey ||
    a.workspace !== b.workspace ||
    a.providerEntity !== b.providerEntity ||
    a.integration !== b.integration ||
    a.virtualKey !== b.virtualKey ||
    a.integrationWorkspace?.rateLimits !== b.integrationWorkspace?.rateLimits ||
    a.integrationWorkspace?.usageLimits !== b.integrationWorkspace?.usageLimits
  ) {
    return false;
  }
  if (a.metadata === b.metadata) return true;
  for (const name of metadataKeys) {
    const x = Object.hasOwn(a.metadata, name) ? a.metadata[name] : undefined;
    const y = Object.hasOwn(b.metadata, name) ? b.metadata[name] : undefined;
    if ((x ?? '') !== (y ?? '')) return false;
  }
  return true;
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
