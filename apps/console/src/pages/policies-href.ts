// The Policies page's addresses: the route is not nested, so the view is in the query string
// (?kind=usage|rate, &new=1, &id=<policy id>) and every view has its own address.
import type { PolicyKind } from './policies-body.js';

export function policiesHref(kind: PolicyKind, view?: { id: string } | 'new'): string {
  const query = new URLSearchParams({ kind });
  if (view === 'new') query.set('new', '1');
  else if (view) query.set('id', view.id);
  return `/policies?${query}`;
}
