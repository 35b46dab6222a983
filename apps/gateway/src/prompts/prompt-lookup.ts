// A prompt of the caller's workspace from the in-memory snapshot (never the control plane): by id or
// slug, the version a label or number selects (the published one otherwise), and the partials it
// includes, each at its published version.

import type { PartialLookup } from '@aigw/prompt-template';
import { EntityKind, EntityStatus, type PromptVersion } from '@aigw/proto';
import { gatewayError } from '../errors.js';
import type { Snapshot } from '../snapshot/index.js';
import type { PromptRef } from './prompt-ref.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface SelectedPrompt {
  readonly id: string;
  readonly slug: string;
  readonly version: PromptVersion;
  /** The label the request named, '' when none. */
  readonly label: string;
}

const notFound = (what: string) => gatewayError('prompt_not_found', what, { param: 'prompt_id' });

export function selectPrompt(snapshot: Snapshot, workspaceId: string, ref: PromptRef): SelectedPrompt {
  const entity = UUID.test(ref.prompt)
    ? snapshot.find(EntityKind.PROMPT, 'prompt', ref.prompt.toLowerCase())
    : snapshot.bySlug(EntityKind.PROMPT, workspaceId, ref.prompt);
  // Another workspace's prompt is as unknown as a missing one.
  if (
    !entity ||
    entity.workspaceId !== workspaceId ||
    entity.body?.$case !== 'prompt' ||
    entity.body.value.status !== EntityStatus.ACTIVE
  ) {
    throw notFound(`no prompt "${ref.prompt}" in this workspace`);
  }
  const prompt = entity.body.value;
  let wanted = prompt.defaultVersion;
  if (ref.label !== undefined) {
    const labelled = prompt.labels[ref.label];
    if (labelled === undefined) throw notFound(`the prompt "${ref.prompt}" has no label "${ref.label}"`);
    wanted = labelled;
  } else if (ref.version !== undefined) wanted = ref.version;
  const version = prompt.versions.find((v) => v.version === wanted);
  if (!version) throw notFound(`the prompt "${ref.prompt}" has no version ${wanted}`);
  return { id: entity.id, slug: prompt.slug, version, label: ref.label ?? '' };
}

/** Partials of the workspace by slug, at their published version. */
export function partialsOf(snapshot: Snapshot, workspaceId: string): PartialLookup {
  return (name) => {
    const entity = snapshot.bySlug(EntityKind.PROMPT_PARTIAL, workspaceId, name);
    return entity?.body?.$case === 'promptPartial' ? entity.body.value.content : undefined;
  };
}
