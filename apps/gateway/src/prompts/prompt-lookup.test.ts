// Prompt lookup from the snapshot: by id or slug within the caller's workspace only, the version a
// label or number selects, the published one otherwise; partials by slug.
import { type Entity, EntityKind, EntityStatus } from '@aigw/proto';
import { describe, expect, it } from 'vitest';
import { Snapshot } from '../snapshot/index.js';
import { partialsOf, selectPrompt } from './prompt-lookup.js';
import { parsePromptRef, promptReference } from './prompt-ref.js';

const ORG = '0b8e3f4a-5c6d-4e7f-8a9b-0c1d2e3f4a5b';
const WS = '1c9f4a5b-6d7e-4f80-9bac-1d2e3f4a5b6c';
const OTHER = '2da05b6c-7e8f-4091-acbd-2e3f4a5b6c7d';
const PROMPT_ID = '3eb16c7d-8f90-41a2-bdce-3f4a5b6c7d8e';

function version(n: number, template: string) {
  return { version: n, template, model: 'm', parametersJson: '{}', variableDefaultsJson: '{}', provider: '' };
}

function prompt(id: string, workspaceId: string, status = EntityStatus.ACTIVE): Entity {
  return {
    kind: EntityKind.PROMPT,
    id,
    version: 1,
    tombstone: false,
    organisationId: ORG,
    workspaceId,
    updatedAtMs: 0,
    body: {
      $case: 'prompt',
      value: {
        name: 'Summary',
        slug: 'summary',
        collectionId: '',
        status,
        defaultVersion: 2,
        versions: [version(1, 'one'), version(2, 'two'), version(3, 'three')],
        labels: { production: 1, staging: 3 },
      },
    },
  };
}

const partial: Entity = {
  kind: EntityKind.PROMPT_PARTIAL,
  id: '4fc27d8e-90a1-42b3-8edf-4a5b6c7d8e9f',
  version: 1,
  tombstone: false,
  organisationId: ORG,
  workspaceId: WS,
  updatedAtMs: 0,
  body: {
    $case: 'promptPartial',
    value: { name: 'Tone', slug: 'tone', status: EntityStatus.ACTIVE, version: 2, content: 'Be kind.' },
  },
};

const snapshot = Snapshot.of([prompt(PROMPT_ID, WS), partial], 1);
const pick = (ref: string, ws = WS) => selectPrompt(snapshot, ws, parsePromptRef(ref));

describe('prompt references', () => {
  it('matches POST /prompts/{ref}/completions only, decoding the reference', () => {
    expect(promptReference('POST', '/prompts/summary%40production/completions')).toBe('summary@production');
    expect(promptReference('GET', '/prompts/summary/completions')).toBeUndefined();
    expect(promptReference('POST', '/prompts/summary/render')).toBeUndefined();
    expect(promptReference('POST', '/chat/completions')).toBeUndefined();
  });

  it('selects the published version, a label or a version number', () => {
    expect(pick('summary').version.template).toBe('two');
    expect(pick(PROMPT_ID).version.template).toBe('two');
    expect(pick('summary@production')).toMatchObject({ id: PROMPT_ID, label: 'production' });
    expect(pick('summary@production').version.template).toBe('one');
    expect(pick('summary@3')).toMatchObject({ label: '' });
    expect(pick('summary@3').version.template).toBe('three');
  });

  it('refuses unknown labels, versions and prompts, and another workspace’s prompt, as 404', () => {
    for (const ref of ['summary@nope', 'summary@9', 'missing', PROMPT_ID.replace('3e', '3f')]) {
      expect(() => pick(ref), ref).toThrow(
        expect.objectContaining({ status: 404, code: 'prompt_not_found' }),
      );
    }
    expect(() => pick(PROMPT_ID, OTHER)).toThrow(expect.objectContaining({ status: 404 }));
    expect(() => pick('summary', OTHER)).toThrow(expect.objectContaining({ status: 404 }));
    const archived = Snapshot.of([prompt(PROMPT_ID, WS, EntityStatus.ARCHIVED)], 1);
    expect(() => selectPrompt(archived, WS, parsePromptRef('summary'))).toThrow(
      expect.objectContaining({ status: 404 }),
    );
  });

  it('finds partials of the workspace by slug', () => {
    expect(partialsOf(snapshot, WS)('tone')).toBe('Be kind.');
    expect(partialsOf(snapshot, OTHER)('tone')).toBeUndefined();
  });
});
