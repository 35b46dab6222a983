// Save-time checks of a template (prompt or partial version): valid Mustache, a well-formed message
// array, every included partial known in the workspace and no loop through partials (400 naming
// them). Partials are resolved at their published version, as the gateway resolves them.
import { checkPartials, TemplateError, templateMessages, templateRefs } from '@aigw/prompt-template';
import type { Kysely } from 'kysely';
import { invalid } from '../api-errors.js';
import type { ControlDatabase } from '../db/schema.js';
import { promptDb } from './prompts.db.js';

/** slug -> published text of every partial of the workspace. */
export async function publishedPartials(
  db: Kysely<ControlDatabase>,
  workspaceId: string,
): Promise<Map<string, string>> {
  const rows = await promptDb(db)
    .selectFrom('prompts as p')
    .innerJoin('prompt_versions as v', (join) =>
      join.onRef('v.prompt_id', '=', 'p.id').onRef('v.version', '=', 'p.default_version'),
    )
    .select(['p.slug', 'v.template'])
    .where('p.workspace_id', '=', workspaceId)
    .where('p.kind', '=', 'partial')
    .execute();
  return new Map(rows.map((r) => [r.slug, r.template]));
}

/** A TemplateError as the admin API's 400 on `param`; anything else rethrown. */
export function templateInvalid(err: unknown, param: string): never {
  if (err instanceof TemplateError) throw invalid(`${param}: ${err.message}`, param);
  throw err;
}

/**
 * Checks a version's template. `partialSlug`: the partial being saved or published (its text is
 * plain Mustache and must not reach itself); undefined for prompts (text or a message array).
 */
export async function checkTemplate(
  db: Kysely<ControlDatabase>,
  workspaceId: string,
  template: string,
  partialSlug?: string,
  param = 'body.string',
): Promise<void> {
  const partials = await publishedPartials(db, workspaceId);
  try {
    const texts = partialSlug === undefined ? templateMessages(template).map((m) => m.content) : [template];
    for (const text of texts) templateRefs(text);
    checkPartials(texts, (name) => partials.get(name), partialSlug);
  } catch (err) {
    templateInvalid(err, param);
  }
}
