// Per-request helpers on a parsed config: weighted picks, conditional picks, lookups and descriptions.
import { expect, describe as group, it } from 'vitest';
import { parseConfig } from './parse-config.js';
import { describe, describeNode, leaves, nodeAt, pickWeighted, selectConditionalTarget } from './select.js';
import type { ConfigNode, NormalisedConfig } from './types.js';

function parsed(input: unknown): NormalisedConfig {
  const result = parseConfig(input);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.config;
}

/** A conditional route as a config spells it. */
function route(query: Record<string, unknown>, target: string): Record<string, unknown> {
  // biome-ignore lint/suspicious/noThenProperty: `then` is the config field's name; this is data, never awaited.
  return { query, then: target };
}

/** n evenly spaced draws over [0, 1): an exact, repeatable stand-in for a uniform RNG. */
function evenDraws(n: number): () => number {
  let i = 0;
  return () => (i++ % n) / n;
}

const loadbalance = parsed({
  strategy: { mode: 'loadbalance' },
  targets: [
    { provider: 'openai', weight: 0.5 },
    { provider: 'anthropic', weight: 0 },
    { provider: 'groq', weight: 1.5 },
  ],
});

group('pickWeighted', () => {
  it('picks in proportion to weight and never picks weight 0', () => {
    const draws = 10_000;
    const random = evenDraws(draws);
    const counts = new Map<string, number>();
    for (let i = 0; i < draws; i++) {
      const path = pickWeighted(loadbalance, random)!.path;
      counts.set(path, (counts.get(path) ?? 0) + 1);
    }
    expect(Object.fromEntries(counts)).toEqual({ 'config.targets[0]': 2500, 'config.targets[2]': 7500 });
  });

  it('maps the edges of [0, 1) to the first and last candidates', () => {
    expect(pickWeighted(loadbalance, () => 0)!.path).toBe('config.targets[0]');
    expect(pickWeighted(loadbalance, () => 0.2499)!.path).toBe('config.targets[0]');
    expect(pickWeighted(loadbalance, () => 0.25)!.path).toBe('config.targets[2]');
    expect(pickWeighted(loadbalance, () => 0.999_999_999)!.path).toBe('config.targets[2]');
  });

  it('returns undefined for a node without weighted targets', () => {
    expect(pickWeighted(parsed({ provider: 'openai' }), () => 0.5)).toBeUndefined();
  });

  it('uses Math.random by default', () => {
    expect(['config.targets[0]', 'config.targets[2]']).toContain(pickWeighted(loadbalance)!.path);
  });
});

const conditional = parsed({
  strategy: { mode: 'fallback' },
  targets: [
    {
      name: 'router',
      strategy: {
        mode: 'conditional',
        conditions: [
          route({ 'metadata.plan': 'paid' }, 'smart'),
          route({ 'params.model': { $regex: '^o\\d' } }, 'backup'),
        ],
        default: 'cheap',
      },
      targets: [
        { name: 'smart', provider: 'openai', override_params: { model: 'gpt-4o' } },
        { name: 'cheap', provider: 'openai', override_params: { model: 'gpt-4o-mini' } },
      ],
    },
    { name: 'backup', provider: 'anthropic' },
  ],
});
const router = conditional.targets[0]!;

group('selectConditionalTarget', () => {
  const pick = (metadata: Record<string, string>, params: Record<string, unknown>): string | undefined =>
    selectConditionalTarget(conditional, router, { metadata, params })?.path;

  it('takes the first condition that holds', () => {
    expect(pick({ plan: 'paid' }, { model: 'o1' })).toBe('config.targets[0].targets[0]');
  });

  it('follows a name to a target of an ancestor', () => {
    expect(pick({ plan: 'free' }, { model: 'o1' })).toBe('config.targets[1]');
  });

  it('falls back to the default', () => {
    expect(pick({}, { model: 'gpt-4o' })).toBe('config.targets[0].targets[1]');
  });

  it('returns undefined without a match or default, and for other modes', () => {
    const noDefault = parsed({
      strategy: { mode: 'conditional', conditions: [route({ 'metadata.a': '1' }, 'a')] },
      targets: [{ name: 'a', provider: 'openai' }],
    });
    expect(selectConditionalTarget(noDefault, noDefault, { metadata: {}, params: {} })).toBeUndefined();
    expect(selectConditionalTarget(noDefault, noDefault, { metadata: { a: '1' }, params: {} })?.path).toBe(
      'config.targets[0]',
    );
    expect(selectConditionalTarget(conditional, conditional, { metadata: {}, params: {} })).toBeUndefined();
  });
});

group('nodeAt, leaves, describe', () => {
  it('finds nodes by path and nothing else', () => {
    expect(nodeAt(conditional, 'config')).toBe(conditional);
    expect(nodeAt(conditional, 'config.targets[0].targets[1]')?.name).toBe('cheap');
    expect(nodeAt(conditional, 'config.targets[2]')).toBeUndefined();
    expect(nodeAt(conditional, 'config.targets[0].weight')).toBeUndefined();
    expect(nodeAt(conditional, 'other')).toBeUndefined();
  });

  it('lists leaves in document order; a config without targets is its own leaf', () => {
    expect(leaves(conditional).map((n: ConfigNode) => n.path)).toEqual([
      'config.targets[0].targets[0]',
      'config.targets[0].targets[1]',
      'config.targets[1]',
    ]);
    const single = parsed({ retry: { attempts: 1 } });
    expect(leaves(single)).toEqual([single]);
  });

  it('describes every node, one line each', () => {
    expect(describe(conditional)).toEqual([
      'config fallback over 2 targets',
      '  config.targets[0] "router" conditional over 2 targets',
      '    config.targets[0].targets[0] "smart" leaf openai',
      '    config.targets[0].targets[1] "cheap" leaf openai',
      '  config.targets[1] "backup" leaf anthropic',
    ]);
    expect(describeNode(parsed({ cache: { mode: 'simple' } }))).toBe('config leaf provider from headers');
    expect(describeNode(parsed({ targets: [{ virtual_key: 'vk' }] }))).toBe('config single over 1 target');
  });
});
