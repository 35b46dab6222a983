// Whether an organisation's limit policies read the request's model (a `model` condition or
// group_by): only then must the pipeline read a request body before admitting it, so that every
// other request streams through (docs/gateway.md, "When the gateway reads a body").
import { EntityKind } from '@aigw/proto';
import type { Snapshot } from '../snapshot/index.js';

export type ModelKeyed = (snapshot: Snapshot, organisationId: string) => boolean;

export function createModelKeyed(): ModelKeyed {
  const bySnapshot = new WeakMap<Snapshot, Map<string, boolean>>();
  return (snapshot, organisationId) => {
    let orgs = bySnapshot.get(snapshot);
    if (!orgs) {
      orgs = new Map();
      bySnapshot.set(snapshot, orgs);
    }
    let keyed = orgs.get(organisationId);
    if (keyed === undefined) {
      keyed = policiesReadModel(snapshot, organisationId);
      orgs.set(organisationId, keyed);
    }
    return keyed;
  };
}

/** Any policy of any status or workspace: a superset only costs a body read. */
function policiesReadModel(snapshot: Snapshot, organisationId: string): boolean {
  for (const kind of [EntityKind.RATE_LIMIT_POLICY, EntityKind.USAGE_LIMIT_POLICY]) {
    for (const policy of snapshot.ofOrganisation(kind, organisationId)) {
      const body = policy.body;
      if (body?.$case !== 'rateLimitPolicy' && body?.$case !== 'usageLimitPolicy') continue;
      for (const { key } of [...body.value.conditions, ...body.value.groupBy])
        if (key === 'model') return true;
    }
  }
  return false;
}
