import { type ConfigNode, type NormalisedConfig, parseConfig } from '@aigw/config-schema';
import { AppError } from '@aigw/runtime';
import { describe, expect, it } from 'vitest';
import { RETRY_BUDGET_MS } from './retry-policy.js';
import { runStrategy, type StrategyOutcome } from './strategy.js';

function config(input: unknown): NormalisedConfig {
  const result = parseConfig(input);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.config;
}

interface Fake extends StrategyOutcome {
  readonly path: string;
  readonly retry: number;
  discarded: boolean;
}

type Script = (path: string, retry: number) => Partial<Pick<Fake, 'status' | 'failed' | 'final' | 'headers'>>;

function harness(script: Script) {
  const calls: string[] = [];
  const waits: number[] = [];
  const made: Fake[] = [];
  const call = async (leaf: ConfigNode, retry: number): Promise<Fake> => {
    calls.push(`${leaf.path}#${retry}`);
    const fake: Fake = {
      status: 200,
      failed: false,
      ...script(leaf.path, retry),
      path: leaf.path,
      retry,
      discarded: false,
      discard() {
        fake.discarded = true;
      },
    };
    made.push(fake);
    return fake;
  };
  /** A fake clock: waits advance it, and so do calls the script says take time (`takesMs`). */
  let clock = 0;
  const now = () => clock;
  const sleep = async (ms: number) => {
    waits.push(ms);
    clock += ms;
  };
  return { calls, waits, made, call, sleep, now, advance: (ms: number) => (clock += ms) };
}

/** A conditional route (`then` is the config field's name). */
function when(query: Record<string, unknown>, target: string) {
  // biome-ignore lint/suspicious/noThenProperty: `then` is the config field's name; this is data, never awaited.
  return { query, then: target };
}

const leaf = (extra: Record<string, unknown> = {}) => ({ provider: 'openai', api_key: 'sk', ...extra });
const context = { metadata: {}, params: {} };

describe('runStrategy', () => {
  it('calls a config without targets as its own leaf', async () => {
    const h = harness(() => ({}));
    const run = await runStrategy(config(leaf()), { context, call: h.call, sleep: h.sleep });
    expect(h.calls).toEqual(['config#0']);
    expect(run.leaf.path).toBe('config');
    expect(run.retries).toBe(0);
  });

  it('single uses the first target', async () => {
    const h = harness(() => ({}));
    const run = await runStrategy(config({ strategy: { mode: 'single' }, targets: [leaf()] }), {
      context,
      call: h.call,
      sleep: h.sleep,
    });
    expect(run.leaf.path).toBe('config.targets[0]');
  });

  it('fallback moves on for any non-2xx by default and for failures, discarding what it passes over', async () => {
    const h = harness((path) =>
      path === 'config.targets[0]'
        ? { status: 429 }
        : path === 'config.targets[1]'
          ? { status: 502, failed: true }
          : { status: 200 },
    );
    const run = await runStrategy(
      config({ strategy: { mode: 'fallback' }, targets: [leaf(), leaf(), leaf()] }),
      { context, call: h.call, sleep: h.sleep },
    );
    expect(h.calls).toEqual(['config.targets[0]#0', 'config.targets[1]#0', 'config.targets[2]#0']);
    expect(run.leaf.path).toBe('config.targets[2]');
    expect(h.made.map((m) => m.discarded)).toEqual([true, true, false]);
  });

  it('fallback with on_status_codes stops on other statuses, but always moves on from a failure', async () => {
    const cfg = config({
      strategy: { mode: 'fallback', on_status_codes: [429] },
      targets: [leaf(), leaf(), leaf()],
    });
    const stops = harness((path) => (path === 'config.targets[0]' ? { status: 500 } : {}));
    expect((await runStrategy(cfg, { context, call: stops.call, sleep: stops.sleep })).leaf.path).toBe(
      'config.targets[0]',
    );
    const failed = harness((path) =>
      path === 'config.targets[0]'
        ? { status: 504, failed: true }
        : path === 'config.targets[1]'
          ? { status: 429 }
          : {},
    );
    const run = await runStrategy(cfg, { context, call: failed.call, sleep: failed.sleep });
    expect(run.leaf.path).toBe('config.targets[2]');
  });

  it('fallback answers with the last target when every one fails', async () => {
    const h = harness(() => ({ status: 503 }));
    const run = await runStrategy(config({ strategy: { mode: 'fallback' }, targets: [leaf(), leaf()] }), {
      context,
      call: h.call,
      sleep: h.sleep,
    });
    expect(run.leaf.path).toBe('config.targets[1]');
    expect(run.outcome.status).toBe(503);
    expect((run.outcome as Fake).discarded).toBe(false);
  });

  it('loadbalance picks by weight and never a drained target', async () => {
    const cfg = config({
      strategy: { mode: 'loadbalance' },
      targets: [leaf({ weight: 3 }), leaf({ weight: 1 }), leaf({ weight: 0 })],
    });
    const h = harness(() => ({}));
    const picks = [0, 0.5, 0.74, 0.76, 0.99];
    const paths: string[] = [];
    for (const r of picks) {
      paths.push((await runStrategy(cfg, { context, call: h.call, random: () => r })).leaf.path);
    }
    expect(paths).toEqual([
      'config.targets[0]',
      'config.targets[0]',
      'config.targets[0]',
      'config.targets[1]',
      'config.targets[1]',
    ]);
  });

  it('conditional routes by metadata and params, then the default', async () => {
    const cfg = config({
      strategy: {
        mode: 'conditional',
        conditions: [
          when({ 'metadata.plan': 'paid' }, 'smart'),
          when({ 'params.model': { $in: ['o1'] } }, 'smart'),
        ],
        default: 'cheap',
      },
      targets: [leaf({ name: 'smart' }), leaf({ name: 'cheap' })],
    });
    const h = harness(() => ({}));
    const route = async (metadata: Record<string, string>, params: Record<string, unknown>) =>
      (await runStrategy(cfg, { context: { metadata, params }, call: h.call })).leaf.path;
    expect(await route({ plan: 'paid' }, {})).toBe('config.targets[0]');
    expect(await route({}, { model: 'o1' })).toBe('config.targets[0]');
    expect(await route({ plan: 'free' }, { model: 'gpt-4o' })).toBe('config.targets[1]');
  });

  it('conditional without a match or default is a 400 naming the node', async () => {
    const cfg = config({
      strategy: { mode: 'conditional', conditions: [when({ 'metadata.plan': 'paid' }, 'a')] },
      targets: [leaf({ name: 'a' })],
    });
    const h = harness(() => ({}));
    const err = await runStrategy(cfg, { context, call: h.call }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('no_matching_target');
    expect((err as AppError).param).toBe('config.strategy');
    expect(h.calls).toEqual([]);
  });

  it('walks nested strategies and reports the leaf path', async () => {
    const cfg = config({
      strategy: { mode: 'fallback' },
      targets: [
        {
          strategy: { mode: 'loadbalance' },
          provider: 'openai',
          targets: [{ api_key: 'a' }, { api_key: 'b' }],
        },
        leaf(),
      ],
    });
    const h = harness((path) => (path.startsWith('config.targets[0]') ? { status: 500 } : {}));
    const run = await runStrategy(cfg, { context, call: h.call, random: () => 0.9, sleep: h.sleep });
    expect(h.calls).toEqual(['config.targets[0].targets[1]#0', 'config.targets[1]#0']);
    expect(run.leaf.path).toBe('config.targets[1]');
  });

  it('retries a target on its retry statuses with growing waits, then stops', async () => {
    const cfg = config(leaf({ retry: { attempts: 3, on_status_codes: [503] } }));
    const h = harness(() => ({ status: 503 }));
    const run = await runStrategy(cfg, { context, call: h.call, sleep: h.sleep, random: () => 0 });
    expect(h.calls).toEqual(['config#0', 'config#1', 'config#2', 'config#3']);
    expect(run.retries).toBe(3);
    expect(h.waits).toEqual([100, 200, 400]);
    expect(h.made.map((m) => m.discarded)).toEqual([true, true, true, false]);
  });

  it('retries failures by their gateway status, and never final outcomes', async () => {
    const cfg = config(leaf({ retry: { attempts: 2 } }));
    const failing = harness((_path, retry) => (retry === 0 ? { status: 502, failed: true } : {}));
    const run = await runStrategy(cfg, { context, call: failing.call, sleep: failing.sleep });
    expect(run.retries).toBe(1);
    const final = harness(() => ({ status: 503, final: true }));
    await runStrategy(cfg, { context, call: final.call, sleep: final.sleep });
    expect(final.calls).toEqual(['config#0']);
    const other = harness(() => ({ status: 400 }));
    await runStrategy(cfg, { context, call: other.call, sleep: other.sleep });
    expect(other.calls).toEqual(['config#0']);
  });

  it('waits as retry-after says when asked, before the fallback moves on', async () => {
    const cfg = config({
      retry: { attempts: 1, use_retry_after_header: true },
      strategy: { mode: 'fallback' },
      targets: [leaf(), leaf()],
    });
    const h = harness((path) =>
      path === 'config.targets[0]' ? { status: 429, headers: { 'retry-after-ms': '1234' } } : {},
    );
    const run = await runStrategy(cfg, { context, call: h.call, sleep: h.sleep });
    expect(h.waits).toEqual([1234]);
    expect(h.calls).toEqual(['config.targets[0]#0', 'config.targets[0]#1', 'config.targets[1]#0']);
    expect(run.retries).toBe(0);
  });

  it('keeps all waits of a request within the budget', async () => {
    const cfg = config({
      retry: { attempts: 10, use_retry_after_header: true },
      strategy: { mode: 'fallback' },
      targets: [leaf(), leaf()],
    });
    const h = harness(() => ({ status: 429, headers: { 'retry-after': '25' } }));
    await runStrategy(cfg, { context, call: h.call, sleep: h.sleep, now: h.now });
    expect(h.waits.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(RETRY_BUDGET_MS);
    expect(h.waits).toEqual([25_000, 25_000]);
    expect(h.calls).toEqual([
      'config.targets[0]#0',
      'config.targets[0]#1',
      'config.targets[0]#2',
      'config.targets[1]#0',
    ]);
  });

  it('counts the time calls take against the budget, not only the waits', async () => {
    const cfg = config(leaf({ retry: { attempts: 10 } }));
    const h = harness(() => {
      // Each call answers a 503 after 20 s.
      h.advance(20_000);
      return { status: 503 };
    });
    const run = await runStrategy(cfg, {
      context,
      call: h.call,
      sleep: h.sleep,
      now: h.now,
      random: () => 0,
    });
    // Started at 0: calls end at 20 s, 40.1 s, 60.3 s; a retry after the third would start past 60 s.
    expect(h.calls).toEqual(['config#0', 'config#1', 'config#2']);
    expect(h.waits).toEqual([100, 200]);
    expect(run.retries).toBe(2);
  });

  it('starts no further call once the client is gone', async () => {
    const controller = new AbortController();
    const cfg = config({
      retry: { attempts: 3 },
      strategy: { mode: 'fallback' },
      targets: [leaf(), leaf()],
    });
    const h = harness(() => {
      controller.abort();
      return { status: 503 };
    });
    await runStrategy(cfg, { context, call: h.call, sleep: h.sleep, signal: controller.signal });
    expect(h.calls).toEqual(['config.targets[0]#0']);
  });
});
