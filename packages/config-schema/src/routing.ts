// The routing graph of a built tree: resolves target names, rejects unknown names, dead targets and loops.
import type { IssueSink, Segment } from './issues.js';
import type { BuiltNode } from './tree.js';
import type { ConditionalRoute, ConfigNode, Strategy, TargetRef } from './types.js';

interface Edge {
  readonly to: BuiltNode;
  /** Where a name reference made this edge (`...strategy.conditions[0].then`); absent for plain routing. */
  readonly via?: readonly Segment[];
}

interface Graph {
  readonly parents: Map<BuiltNode, BuiltNode>;
  readonly edges: Map<BuiltNode, Edge[]>;
}

/**
 * Check the routing of a tree that passed field validation and return it as ConfigNodes, or undefined
 * after recording issues. A conditional `then`/`default` names a target of the node itself or, failing
 * that, of its nearest ancestor that has one (lexical scope), so a name can lead back up the tree.
 */
export function resolveRouting(root: BuiltNode, sink: IssueSink): ConfigNode | undefined {
  const before = sink.size;
  const graph: Graph = { parents: new Map(), edges: new Map() };
  indexParents(root, graph.parents);
  forEachNode(root, (node) => graph.edges.set(node, edgesOf(node, graph.parents, sink)));
  if (sink.size !== before) return undefined;
  const reachable = findCycles(root, graph, sink);
  forEachNode(root, (node) => {
    const parent = graph.parents.get(node);
    if (parent && reachable.has(parent) && !reachable.has(node)) {
      sink.add(node.segments, 'unreachable_target', unreachableText(parent));
    }
  });
  return sink.size === before ? toConfigNode(root, graph) : undefined;
}

function forEachNode(node: BuiltNode, visit: (node: BuiltNode) => void): void {
  visit(node);
  for (const target of node.targets) forEachNode(target, visit);
}

function indexParents(node: BuiltNode, parents: Map<BuiltNode, BuiltNode>): void {
  for (const target of node.targets) {
    parents.set(target, node);
    indexParents(target, parents);
  }
}

/** The target `name` resolves to from `node`: its own targets first, then each ancestor's. */
function resolveName(
  name: string,
  node: BuiltNode,
  parents: Map<BuiltNode, BuiltNode>,
): BuiltNode | undefined {
  for (let scope: BuiltNode | undefined = node; scope; scope = parents.get(scope)) {
    const found = scope.targets.find((t) => t.name === name);
    if (found) return found;
  }
  return undefined;
}

function edgesOf(node: BuiltNode, parents: Map<BuiltNode, BuiltNode>, sink: IssueSink): Edge[] {
  const strategy = node.strategy;
  if (!strategy) return [];
  if (strategy.mode === 'single') return [{ to: node.targets[0]! }];
  if (strategy.mode !== 'conditional') return node.targets.map((to) => ({ to }));
  const refs: { name: string; via: Segment[] }[] = (strategy.conditions ?? []).map((c, i) => ({
    name: c.name,
    via: [...node.segments, 'strategy', 'conditions', i, 'then'],
  }));
  if (strategy.default !== undefined) {
    refs.push({ name: strategy.default, via: [...node.segments, 'strategy', 'default'] });
  }
  const edges: Edge[] = [];
  for (const ref of refs) {
    const to = resolveName(ref.name, node, parents);
    if (to) edges.push({ to, via: ref.via });
    else
      sink.add(
        ref.via,
        'unknown_target',
        `no target named "${ref.name}" among the targets of this node or its ancestors`,
      );
  }
  return edges;
}

/** Depth-first from the root: reports each loop once, at a name reference on it; returns what was reached. */
function findCycles(root: BuiltNode, graph: Graph, sink: IssueSink): Set<BuiltNode> {
  const done = new Set<BuiltNode>();
  const stack: { node: BuiltNode; via?: readonly Segment[] }[] = [];
  const onStack = new Set<BuiltNode>();
  const visit = (node: BuiltNode, via?: readonly Segment[]): void => {
    stack.push({ node, ...(via && { via }) });
    onStack.add(node);
    for (const edge of graph.edges.get(node) ?? []) {
      if (onStack.has(edge.to)) reportCycle(stack, edge, sink);
      else if (!done.has(edge.to)) visit(edge.to, edge.via);
    }
    stack.pop();
    onStack.delete(node);
    done.add(node);
  };
  visit(root);
  return done;
}

function reportCycle(
  stack: readonly { node: BuiltNode; via?: readonly Segment[] }[],
  closing: Edge,
  sink: IssueSink,
): void {
  const start = stack.findIndex((entry) => entry.node === closing.to);
  const loop = stack.slice(start);
  const via = closing.via ?? loop.slice(1).find((entry) => entry.via)?.via;
  if (!via) return;
  const route = [...loop.map((entry) => entry.node.path), closing.to.path].join(' -> ');
  sink.add(via, 'cycle', `routes back to ${closing.to.path}, a loop: ${route}`);
}

function unreachableText(parent: BuiltNode): string {
  if (parent.strategy?.mode === 'single') {
    return `is never used: mode "single" of ${parent.path} routes to its first target only`;
  }
  return `is never used: no condition or default of ${parent.path} routes to it`;
}

function toConfigNode(node: BuiltNode, graph: Graph): ConfigNode {
  return {
    path: node.path,
    ...(node.name !== undefined && { name: node.name }),
    weight: node.weight,
    strategy: toStrategy(node, graph),
    settings: node.settings,
    targets: node.targets.map((target) => toConfigNode(target, graph)),
  };
}

function toStrategy(node: BuiltNode, graph: Graph): Strategy | null {
  const strategy = node.strategy;
  if (!strategy) return null;
  switch (strategy.mode) {
    case 'fallback':
      return strategy.on_status_codes
        ? { mode: 'fallback', on_status_codes: strategy.on_status_codes }
        : { mode: 'fallback' };
    case 'conditional': {
      const target = (name: string): string => resolveName(name, node, graph.parents)!.path;
      const conditions: ConditionalRoute[] = (strategy.conditions ?? []).map((c) => ({
        query: c.query,
        name: c.name,
        target: target(c.name),
      }));
      const fallback: TargetRef | undefined =
        strategy.default === undefined
          ? undefined
          : { name: strategy.default, target: target(strategy.default) };
      return { mode: 'conditional', conditions, ...(fallback && { default: fallback }) };
    }
    default:
      return { mode: strategy.mode };
  }
}
