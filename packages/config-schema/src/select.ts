// Pure helpers the gateway runs per request on a normalised config: lookups, weighted and conditional picks.
import { evaluateCondition } from './query.js';
import type { ConditionContext, ConfigNode, NormalisedConfig } from './types.js';

const STEP = /^\.targets\[(\d+)\]/;

/** The node at `path` (`config.targets[1].targets[0]`), or undefined. */
export function nodeAt(config: NormalisedConfig, path: string): ConfigNode | undefined {
  if (!path.startsWith(config.path)) return undefined;
  let node: ConfigNode | undefined = config;
  let rest = path.slice(config.path.length);
  while (node && rest.length > 0) {
    const step = STEP.exec(rest);
    if (!step) return undefined;
    node = node.targets[Number(step[1])];
    rest = rest.slice(step[0].length);
  }
  return node;
}

/** The callable targets (nodes without targets), in document order. */
export function leaves(config: NormalisedConfig): ConfigNode[] {
  if (config.targets.length === 0) return [config];
  return config.targets.flatMap((target) => leaves(target));
}

/** One line about a node: `config.targets[1] "backup" fallback over 2 targets` or `... leaf openai`. */
export function describeNode(node: ConfigNode): string {
  const name = node.name === undefined ? '' : ` "${node.name}"`;
  if (!node.strategy) {
    const provider = node.settings.provider ?? node.settings.virtual_key ?? 'provider from headers';
    return `${node.path}${name} leaf ${provider}`;
  }
  const count = node.targets.length;
  return `${node.path}${name} ${node.strategy.mode} over ${count} target${count === 1 ? '' : 's'}`;
}

/** describeNode for every node, depth first, indented by depth. */
export function describe(config: NormalisedConfig): string[] {
  const lines: string[] = [];
  const walk = (node: ConfigNode, depth: number): void => {
    lines.push(`${'  '.repeat(depth)}${describeNode(node)}`);
    for (const target of node.targets) walk(target, depth + 1);
  };
  walk(config, 0);
  return lines;
}

/**
 * Pick a target of a loadbalance node in proportion to its weight; weight 0 is never picked.
 * `random` returns a number in [0, 1), as Math.random does.
 */
export function pickWeighted(node: ConfigNode, random: () => number = Math.random): ConfigNode | undefined {
  const candidates = node.targets.filter((target) => target.weight > 0);
  const total = candidates.reduce((sum, target) => sum + target.weight, 0);
  if (total <= 0) return undefined;
  let point = random() * total;
  for (const target of candidates) {
    point -= target.weight;
    if (point < 0) return target;
  }
  return candidates.at(-1);
}

/**
 * The target a conditional node routes to: the first condition that holds, else the default; undefined
 * when neither applies (the gateway answers 400). `config` is needed because a name may resolve to a
 * target of an ancestor.
 */
export function selectConditionalTarget(
  config: NormalisedConfig,
  node: ConfigNode,
  context: ConditionContext,
): ConfigNode | undefined {
  const strategy = node.strategy;
  if (strategy?.mode !== 'conditional') return undefined;
  const route = strategy.conditions.find((c) => evaluateCondition(c.query, context));
  const target = route?.target ?? strategy.default?.target;
  return target === undefined ? undefined : nodeAt(config, target);
}
