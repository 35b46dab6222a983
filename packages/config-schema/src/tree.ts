// Walks the raw config tree: validates each node's fields, enforces size limits, computes inheritance.
import { z } from 'zod';
import { parseGuardrails } from './guardrails.schema.js';
import { inheritSettings, type OwnSettings } from './inherit.js';
import { describeType, formatPath, type IssueSink, isPlainObject, type Segment } from './issues.js';
import { LIMITS, PROVIDER_FIELDS, SHARED_FIELDS, targetName } from './settings.schema.js';
import { parseStrategy, type RawStrategy, STRATEGY_MODES } from './strategy.schema.js';
import type { EffectiveSettings, StrategyMode } from './types.js';
import { unknownKeyText } from './unknown-keys.js';
import { validateWith } from './zod-issues.js';

/** A validated node whose strategy still names its targets (resolved by routing.ts). */
export interface BuiltNode {
  readonly segments: readonly Segment[];
  readonly path: string;
  readonly name?: string;
  readonly weight: number;
  readonly strategy: RawStrategy | null;
  readonly targets: readonly BuiltNode[];
  readonly settings: EffectiveSettings;
}

interface Walk {
  readonly sink: IssueSink;
  nodes: number;
}

interface Parent {
  readonly settings: EffectiveSettings;
  readonly mode: StrategyMode;
}

const weight = z.number().min(0).max(LIMITS.maxWeight);

/** Build the tree rooted at `input`; undefined when anything is wrong (the issues are in `sink`). */
export function buildTree(input: unknown, sink: IssueSink): BuiltNode | undefined {
  const walk: Walk = { sink, nodes: 0 };
  if (isPlainObject(input) && Object.keys(input).every((key) => key.startsWith('_'))) {
    sink.add(
      ['config'],
      'empty_config',
      'sets nothing: give a provider, targets, or settings such as retry or cache',
    );
    return undefined;
  }
  const root = buildNode(input, ['config'], 0, undefined, walk);
  return sink.size === 0 ? root : undefined;
}

function buildNode(
  raw: unknown,
  segments: readonly Segment[],
  depth: number,
  parent: Parent | undefined,
  walk: Walk,
): BuiltNode | undefined {
  const { sink } = walk;
  if (!isPlainObject(raw)) {
    sink.add(segments, 'invalid_type', `must be an object, got ${describeType(raw)}`);
    return undefined;
  }
  walk.nodes++;
  if (walk.nodes === LIMITS.maxNodes + 1) {
    sink.add(['config'], 'too_many_nodes', `has more than ${LIMITS.maxNodes} nodes (targets at any depth)`);
  }
  if (walk.nodes > LIMITS.maxNodes) return undefined;

  const own: OwnSettings = {};
  const mutableOwn = own as Record<string, unknown>;
  let name: string | undefined;
  let nodeWeight: number | undefined;
  for (const key of Object.keys(raw)) {
    const at = [...segments, key];
    const value = raw[key];
    if (key.startsWith('_') || key === 'strategy' || key === 'targets') continue;
    if (Object.hasOwn(PROVIDER_FIELDS, key)) {
      mutableOwn[key] = validateWith(PROVIDER_FIELDS[key as keyof typeof PROVIDER_FIELDS], value, at, sink);
    } else if (Object.hasOwn(SHARED_FIELDS, key)) {
      mutableOwn[key] = validateWith(SHARED_FIELDS[key as keyof typeof SHARED_FIELDS], value, at, sink);
    } else if (key === 'input_guardrails' || key === 'output_guardrails') {
      mutableOwn[key] = parseGuardrails(value, at, sink);
    } else if (key === 'name') {
      if (!parent) sink.add(at, 'unexpected_field', 'applies only to targets');
      else name = validateWith(targetName, value, at, sink);
    } else if (key === 'weight') {
      if (parent?.mode !== 'loadbalance') {
        sink.add(at, 'unexpected_field', 'applies only to targets of a "loadbalance" strategy');
      } else nodeWeight = validateWith(weight, value, at, sink);
    } else {
      sink.add(at, 'unknown_key', unknownKeyText(key));
    }
  }
  if (raw.provider !== undefined && raw.virtual_key !== undefined) {
    sink.add(
      [...segments, 'virtual_key'],
      'conflicting_fields',
      'cannot be combined with provider: a virtual key names its provider',
    );
  }
  const settings = inheritSettings(parent?.settings, own);
  if (
    own.api_key !== undefined &&
    (settings.virtual_key !== undefined || settings.provider?.startsWith('@'))
  ) {
    sink.add(
      [...segments, 'api_key'],
      'conflicting_fields',
      'cannot be combined with a managed provider (virtual_key or "@slug"), which holds its own credentials',
    );
  }

  let strategy: RawStrategy | undefined;
  if (raw.strategy !== undefined) {
    strategy = parseStrategy(raw.strategy, [...segments, 'strategy'], sink);
    if (raw.targets === undefined)
      sink.add([...segments, 'strategy'], 'missing_targets', 'needs targets to route to');
  }
  const mode = strategy?.mode ?? declaredMode(raw.strategy) ?? 'single';
  const targets = buildTargets(raw.targets, segments, depth, { settings, mode }, walk);
  return {
    segments,
    path: formatPath(segments),
    ...(name !== undefined && { name }),
    weight: nodeWeight ?? 1,
    strategy: targets.length > 0 ? (strategy ?? { mode: 'single' }) : null,
    targets,
    settings,
  };
}

/** The mode a strategy asks for even when another of its fields is wrong, so children are judged by it. */
function declaredMode(strategy: unknown): StrategyMode | undefined {
  const mode = isPlainObject(strategy) ? strategy.mode : undefined;
  return STRATEGY_MODES.find((m) => m === mode);
}

function buildTargets(
  value: unknown,
  segments: readonly Segment[],
  depth: number,
  parent: Parent,
  walk: Walk,
): BuiltNode[] {
  if (value === undefined) return [];
  const { sink } = walk;
  const at = [...segments, 'targets'];
  if (!Array.isArray(value)) {
    sink.add(at, 'invalid_type', `must be an array, got ${describeType(value)}`);
    return [];
  }
  if (value.length === 0) {
    sink.add(at, 'too_small', 'must not be empty');
    return [];
  }
  if (value.length > LIMITS.maxTargets) {
    sink.add(at, 'too_many_targets', `has ${value.length} targets; at most ${LIMITS.maxTargets} are allowed`);
    return [];
  }
  if (depth >= LIMITS.maxDepth) {
    sink.add(at, 'too_deep', `nests targets deeper than ${LIMITS.maxDepth} levels`);
    return [];
  }
  const built: BuiltNode[] = [];
  value.forEach((item, i) => {
    const node = buildNode(item, [...at, i], depth + 1, parent, walk);
    if (node) built.push(node);
  });
  if (built.length === value.length) checkSiblings(built, at, parent.mode, sink);
  return built;
}

function checkSiblings(
  targets: readonly BuiltNode[],
  at: readonly Segment[],
  mode: StrategyMode,
  sink: IssueSink,
): void {
  const seen = new Map<string, BuiltNode>();
  for (const target of targets) {
    if (target.name === undefined) continue;
    const first = seen.get(target.name);
    if (first) {
      sink.add(
        [...target.segments, 'name'],
        'duplicate_name',
        `"${target.name}" is already the name of ${first.path}`,
      );
    } else seen.set(target.name, target);
  }
  if (mode === 'loadbalance' && targets.reduce((sum, t) => sum + t.weight, 0) === 0) {
    sink.add(at, 'weights_sum_zero', 'weights add up to 0: at least one target needs a weight above 0');
  }
}
