// Saved guardrails named in a config (`"input_guardrails": ["pii-guard"]`): resolved per request from
// the snapshot, within the request's workspace or its organisation's own, into the inline guardrails
// the engine runs. Refs are resolved after the parse caches, so an edit applies with the next snapshot.
// Webhook and third-party (`partner.<name>`) checks get back their header values from the entity's
// sealed envelope (guardrail-headers.ts) before the definition is validated and run. The entity's
// `actions.on_fail` / `actions.on_success` feedback become the inline guardrail's own.
import {
  type ConfigNode,
  configErrorMessage,
  type Guardrail,
  type NormalisedConfig,
  parseConfig,
} from '@aigw/config-schema';
import { type Entity, EntityKind, EntityStatus } from '@aigw/proto';
import { gatewayError } from '../errors.js';
import { type EntityOf, organisationScope, type Snapshot } from '../snapshot/index.js';
import { type GuardrailHeaderStore, HeadersUnavailable, putBackHeaders } from './guardrail-headers.js';

interface Ref {
  /** `config.targets[0].input_guardrails[1]`: the `param` of errors. */
  readonly at: string;
  readonly idOrSlug: string;
}

interface Resolved {
  /** The entity each ref resolved to, in ref order: the tree is reused while they stay the same. */
  readonly entities: readonly Entity[];
  /** The header store the definitions were opened with (one per access resolver). */
  readonly headers: GuardrailHeaderStore;
  readonly config: NormalisedConfig;
}

/** Workspaces whose resolution of one config is kept (an inline config can serve many). */
const MAX_WORKSPACES = 64;

/** Refs of each config tree, in walk order; an empty list for most configs. */
const refsOf = new WeakMap<NormalisedConfig, readonly Ref[]>();
/** Per config, per workspace: the last resolution. */
const resolutions = new WeakMap<NormalisedConfig, Map<string, Resolved>>();
/** Per header store, a guardrail entity's definition as an inline guardrail (entities are immutable). */
const converted = new WeakMap<GuardrailHeaderStore, WeakMap<Entity, Guardrail | Error>>();
/** The saved guardrail each converted definition came from (request events' `guardrail_id`). */
const savedIds = new WeakMap<Guardrail, string>();
/** Per resolved config: the saved guardrails' ids by the label their results carry. */
const idsByLabel = new WeakMap<NormalisedConfig, ReadonlyMap<string, string>>();

/**
 * The config with every saved-guardrail ref replaced by its definition. Throws 400
 * `guardrail_not_found` (unknown, archived, or another workspace's: tenant isolation) and
 * `config_unavailable` (a definition this gateway cannot run), `param` being the ref's path.
 */
export function resolveGuardrailRefs(
  config: NormalisedConfig,
  snapshot: Snapshot,
  organisationId: string,
  workspaceId: string,
  headers: GuardrailHeaderStore,
): NormalisedConfig {
  const refs = listRefs(config);
  if (refs.length === 0) return config;
  const entities = refs.map((ref) => lookup(snapshot, organisationId, workspaceId, ref));
  let byWorkspace = resolutions.get(config);
  const held = byWorkspace?.get(workspaceId);
  if (held?.headers === headers && held.entities.every((e, i) => e === entities[i])) return held.config;
  const lists = new Map<readonly Guardrail[], readonly Guardrail[]>();
  let i = 0;
  // Walk order is listRefs' order: the i-th ref met is the i-th entity.
  const resolveList = (list: readonly Guardrail[] | undefined): readonly Guardrail[] | undefined => {
    if (!list) return list;
    const known = lists.get(list);
    if (known) return known;
    const out = Object.freeze(
      list.map((g) => {
        if (g.type !== 'ref') return g;
        const ref = refs[i] as Ref;
        return definition(entities[i++] as EntityOf<'guardrail'>, ref, headers);
      }),
    );
    lists.set(list, out);
    return out;
  };
  const rebuild = (node: ConfigNode): ConfigNode => {
    const s = node.settings;
    const input = resolveList(s.input_guardrails);
    const output = resolveList(s.output_guardrails);
    const targets = node.targets.map(rebuild);
    return Object.freeze({
      ...node,
      settings: Object.freeze({
        ...s,
        ...(input && { input_guardrails: input }),
        ...(output && { output_guardrails: output }),
      }),
      targets: Object.freeze(targets),
    });
  };
  const resolved = rebuild(config);
  if (!byWorkspace) {
    byWorkspace = new Map();
    resolutions.set(config, byWorkspace);
  }
  if (byWorkspace.size >= MAX_WORKSPACES) byWorkspace.clear();
  byWorkspace.set(workspaceId, { entities, headers, config: resolved });
  return resolved;
}

/** Refs in the order `rebuild` meets them: a list shared by inheritance is counted once. */
function listRefs(config: NormalisedConfig): readonly Ref[] {
  let refs = refsOf.get(config);
  if (refs) return refs;
  const out: Ref[] = [];
  const seen = new Set<readonly Guardrail[]>();
  const add = (path: string, field: string, list: readonly Guardrail[] | undefined) => {
    if (!list || seen.has(list)) return;
    seen.add(list);
    list.forEach((g, i) => {
      if (g.type === 'ref') out.push({ at: `${path}.${field}[${i}]`, idOrSlug: g.id });
    });
  };
  const walk = (node: ConfigNode) => {
    add(node.path, 'input_guardrails', node.settings.input_guardrails);
    add(node.path, 'output_guardrails', node.settings.output_guardrails);
    for (const target of node.targets) walk(target);
  };
  walk(config);
  refs = Object.freeze(out);
  refsOf.set(config, refs);
  return refs;
}

/** The active guardrail of the workspace (or of its organisation) with this id or slug. */
function lookup(snapshot: Snapshot, organisationId: string, workspaceId: string, ref: Ref): Entity {
  const byId = snapshot.find(EntityKind.GUARDRAIL, 'guardrail', ref.idOrSlug);
  const visible = (e: Entity | undefined) =>
    e?.organisationId === organisationId && (e.workspaceId === workspaceId || e.workspaceId === '');
  const entity = visible(byId)
    ? byId
    : (snapshot.bySlug(EntityKind.GUARDRAIL, workspaceId, ref.idOrSlug) ??
      snapshot.bySlug(EntityKind.GUARDRAIL, organisationScope(organisationId), ref.idOrSlug));
  const name = `saved guardrail "${ref.idOrSlug.slice(0, 128)}"`;
  if (entity?.body?.$case !== 'guardrail' || !visible(entity)) {
    throw gatewayError('guardrail_not_found', `${ref.at}: ${name} does not exist in this workspace`, {
      param: ref.at,
    });
  }
  if (entity.body.value.status !== EntityStatus.ACTIVE) {
    throw gatewayError('guardrail_not_found', `${ref.at}: ${name} is archived`, { param: ref.at });
  }
  return entity;
}

/** The stored `{checks, actions, async}` as the inline guardrail the engine runs. */
function definition(entity: EntityOf<'guardrail'>, ref: Ref, headers: GuardrailHeaderStore): Guardrail {
  let byEntity = converted.get(headers);
  if (!byEntity) {
    byEntity = new WeakMap();
    converted.set(headers, byEntity);
  }
  let guardrail = byEntity.get(entity);
  if (!guardrail) {
    guardrail = convert(entity, headers);
    byEntity.set(entity, guardrail);
  }
  if (guardrail instanceof HeadersUnavailable) {
    // As an unopenable provider credential: 500, and no webhook or partner is called without its headers.
    throw gatewayError('credentials_unavailable', `${ref.at}: ${guardrail.message}`, { param: ref.at });
  }
  if (guardrail instanceof Error) {
    throw gatewayError('config_unavailable', `${ref.at}: ${guardrail.message}`, { param: ref.at });
  }
  return guardrail;
}

interface StoredDefinition {
  readonly checks?: readonly { readonly id?: unknown; readonly parameters?: unknown }[];
  readonly actions?: { readonly deny?: unknown; readonly on_fail?: unknown; readonly on_success?: unknown };
  readonly async?: unknown;
}

function convert(entity: EntityOf<'guardrail'>, headers: GuardrailHeaderStore): Guardrail | Error {
  const { slug, bodyJson, encryptedHeaders } = entity.body.value;
  const name = `saved guardrail "${slug}"`;
  let stored: StoredDefinition;
  try {
    stored = JSON.parse(bodyJson) as StoredDefinition;
  } catch {
    return new Error(`${name} has a definition this gateway cannot read`);
  }
  const checks = Array.isArray(stored?.checks) ? stored.checks : [];
  if (encryptedHeaders.length > 0) {
    const opened = headers.open(entity.id, entity.version, encryptedHeaders);
    if (opened instanceof HeadersUnavailable) return opened;
    // `checks` was parsed for this conversion alone: the values go back in place.
    if (!putBackHeaders([{ path: '', checks }], opened)) {
      return new HeadersUnavailable(
        `the webhook headers of ${name} do not match its checks (control plane and gateway disagree)`,
      );
    }
  }
  // The inline rules (catalogue, parameters, async-cannot-deny, the actions' feedback range)
  // validate it again: a gateway on an older schema must refuse what it cannot run rather than run
  // part of it. The outcome actions are inline guardrails' `on_fail` / `on_success` as they are.
  const actions = stored.actions;
  const inline = {
    checks,
    deny: actions?.deny === true,
    async: stored.async === true,
    ...(actions?.on_fail !== undefined && { on_fail: actions.on_fail }),
    ...(actions?.on_success !== undefined && { on_success: actions.on_success }),
  };
  const result = parseConfig({ input_guardrails: [inline] });
  const parsed = result.ok ? result.config.settings.input_guardrails?.[0] : undefined;
  if (!result.ok || parsed?.type !== 'inline') {
    const why = result.ok ? 'it is not a guardrail' : configErrorMessage(result.errors);
    return new Error(`${name} has a definition this gateway cannot run (${why})`);
  }
  // Labelled by its slug in hook_results and request events, as the config named it.
  const guardrail = Object.freeze({ ...parsed, id: slug });
  savedIds.set(guardrail, entity.id);
  return guardrail;
}

/**
 * The saved guardrails of a resolved config, by the label their results carry (the slug). A label
 * an inline guardrail of the config also uses is left out: its results cannot be told apart.
 */
export function savedGuardrailIds(config: NormalisedConfig): ReadonlyMap<string, string> {
  let ids = idsByLabel.get(config);
  if (ids) return ids;
  const found = new Map<string, string>();
  const ambiguous = new Set<string>();
  const walk = (node: ConfigNode) => {
    for (const list of [node.settings.input_guardrails, node.settings.output_guardrails]) {
      for (const g of list ?? []) {
        if (g.id === undefined) continue;
        const id = savedIds.get(g);
        if (id === undefined || (found.has(g.id) && found.get(g.id) !== id)) ambiguous.add(g.id);
        else found.set(g.id, id);
      }
    }
    for (const target of node.targets) walk(target);
  };
  walk(config);
  for (const label of ambiguous) found.delete(label);
  ids = found;
  idsByLabel.set(config, ids);
  return ids;
}
