// Prompt and partial rows as the API returns them and as gateways receive them (proto Entity PROMPT
// with every version and label; PROMPT_PARTIAL with its published version's text).
import { type Entity, EntityKind, EntityStatus, type PromptVersion } from '@aigw/proto';
import type { Kysely } from 'kysely';
import type { ControlDatabase } from '../db/schema.js';
import { type PromptRow, type PromptVersionRow, promptDb } from './prompts.db.js';

type Db = Kysely<ControlDatabase>;
export type PromptSummaryRow = PromptRow;
/** Label name -> version, of one prompt. */
export type Labels = Record<string, number>;

const iso = (d: Date) => d.toISOString();

export function promptSummaryToApi(row: PromptRow, labels: Labels) {
  return {
    id: row.id,
    object: row.kind === 'prompt' ? ('prompt' as const) : ('prompt_partial' as const),
    organisation_id: row.organisation_id,
    workspace_id: row.workspace_id,
    ...(row.kind === 'prompt' ? { collection_id: row.collection_id } : {}),
    name: row.name,
    slug: row.slug,
    status: row.status,
    latest_version: row.latest_version,
    default_version: row.default_version,
    labels,
    created_by_user_id: row.created_by_user_id,
    created_by_api_key_id: row.created_by_api_key_id,
    created_at: iso(row.created_at),
    last_updated_at: iso(row.updated_at),
  };
}

export function versionToApi(row: PromptVersionRow, labels: Labels) {
  return {
    object: 'prompt_version' as const,
    prompt_id: row.prompt_id,
    version: row.version,
    string: row.template,
    model: row.model,
    provider: row.provider,
    parameters: row.parameters,
    variables: row.variables,
    metadata: row.metadata,
    description: row.description,
    labels: Object.entries(labels)
      .filter(([, v]) => v === row.version)
      .map(([name]) => name)
      .sort(),
    created_by_user_id: row.created_by_user_id,
    created_by_api_key_id: row.created_by_api_key_id,
    created_at: iso(row.created_at),
    last_updated_at: iso(row.updated_at),
  };
}

/** Label name -> version of each prompt given. */
export async function labelsOf(db: Db, promptIds: readonly string[]): Promise<Map<string, Labels>> {
  const out = new Map<string, Labels>();
  if (promptIds.length === 0) return out;
  const rows = await promptDb(db)
    .selectFrom('prompt_version_labels as pl')
    .innerJoin('prompt_labels as l', 'l.id', 'pl.label_id')
    .select(['pl.prompt_id', 'l.name', 'pl.version'])
    .where('pl.prompt_id', 'in', promptIds)
    .execute();
  for (const r of rows) {
    const labels = out.get(r.prompt_id) ?? {};
    labels[r.name] = r.version;
    out.set(r.prompt_id, labels);
  }
  return out;
}

const status = (row: PromptRow) => (row.status === 'active' ? EntityStatus.ACTIVE : EntityStatus.ARCHIVED);

function envelope(row: PromptRow): Omit<Entity, 'body'> {
  return {
    kind: row.kind === 'prompt' ? EntityKind.PROMPT : EntityKind.PROMPT_PARTIAL,
    id: row.id,
    version: Number(row.version),
    tombstone: false,
    organisationId: row.organisation_id,
    workspaceId: row.workspace_id,
    updatedAtMs: row.updated_at.getTime(),
  };
}

function versionToProto(v: PromptVersionRow): PromptVersion {
  return {
    version: v.version,
    template: v.template,
    model: v.model ?? '',
    parametersJson: JSON.stringify(v.parameters),
    variableDefaultsJson: JSON.stringify(v.variables),
    provider: v.provider ?? '',
  };
}

/** The entity gateways hold: a prompt with all its versions, or a partial at its published version. */
export function promptEntityOf(
  row: PromptRow,
  versions: readonly PromptVersionRow[],
  labels: Labels,
): Entity {
  if (row.kind === 'partial') {
    const published = versions.find((v) => v.version === row.default_version);
    return {
      ...envelope(row),
      body: {
        $case: 'promptPartial',
        value: {
          name: row.name,
          slug: row.slug,
          status: status(row),
          version: row.default_version,
          content: published?.template ?? '',
        },
      },
    };
  }
  return {
    ...envelope(row),
    body: {
      $case: 'prompt',
      value: {
        name: row.name,
        slug: row.slug,
        collectionId: row.collection_id ?? '',
        status: status(row),
        defaultVersion: row.default_version,
        versions: [...versions].sort((a, b) => a.version - b.version).map(versionToProto),
        labels,
      },
    },
  };
}

/** The entity of one prompt or partial as it is now in `db` (inside the writing transaction). */
export async function promptEntity(db: Db, row: PromptRow): Promise<Entity> {
  const versions = await promptDb(db)
    .selectFrom('prompt_versions')
    .selectAll()
    .where('prompt_id', '=', row.id)
    .execute();
  return promptEntityOf(row, versions, (await labelsOf(db, [row.id])).get(row.id) ?? {});
}

async function readKind(trx: Db, kind: 'prompt' | 'partial'): Promise<Entity[]> {
  const db = promptDb(trx);
  const rows = await db.selectFrom('prompts').selectAll().where('kind', '=', kind).execute();
  const versions = await db
    .selectFrom('prompt_versions as v')
    .innerJoin('prompts as p', 'p.id', 'v.prompt_id')
    .selectAll('v')
    .where('p.kind', '=', kind)
    .execute();
  const byPrompt = new Map<string, PromptVersionRow[]>();
  for (const v of versions) {
    const list = byPrompt.get(v.prompt_id);
    if (list) list.push(v);
    else byPrompt.set(v.prompt_id, [v]);
  }
  const labels =
    kind === 'prompt'
      ? await labelsOf(
          trx,
          rows.map((r) => r.id),
        )
      : new Map<string, Labels>();
  return rows.map((row) => promptEntityOf(row, byPrompt.get(row.id) ?? [], labels.get(row.id) ?? {}));
}

/** Snapshot readers: every prompt (all versions and labels) and every partial (published text). */
export const readPromptEntities = (trx: Db) => readKind(trx, 'prompt');
export const readPromptPartialEntities = (trx: Db) => readKind(trx, 'partial');

/** A prompt or partial with its labels and its published version, as GET returns it. */
export async function promptToApi(db: Db, row: PromptRow) {
  const labels = (await labelsOf(db, [row.id])).get(row.id) ?? {};
  const published = await promptDb(db)
    .selectFrom('prompt_versions')
    .selectAll()
    .where('prompt_id', '=', row.id)
    .where('version', '=', row.default_version)
    .executeTakeFirstOrThrow();
  return { ...promptSummaryToApi(row, labels), version: versionToApi(published, labels) };
}
