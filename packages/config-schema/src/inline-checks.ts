// Where a config object keeps the checks of its inline guardrails: the `checks` array of every inline
// guardrail in `input_guardrails` / `output_guardrails` of the root and of every target, nested
// targets included, with a path relative to the config object. The control plane seals those checks'
// webhook headers by this path and the gateway puts them back by it, so both walk the tree alike.

const GUARDRAIL_LISTS = ['input_guardrails', 'output_guardrails'] as const;

export interface InlineCheckList {
  /** Dot-separated path of the `checks` array: `targets.0.input_guardrails.1.checks`. */
  readonly path: string;
  /** The array itself (not a copy): a caller may replace its items in place. */
  readonly checks: unknown[];
}

/** The `checks` arrays of the inline guardrails of a raw (not normalised) config object. */
export function inlineCheckLists(config: unknown): InlineCheckList[] {
  const out: InlineCheckList[] = [];
  const walk = (node: unknown, at: string): void => {
    if (!isObject(node)) return;
    for (const list of GUARDRAIL_LISTS) {
      const entries = node[list];
      if (!Array.isArray(entries)) continue;
      entries.forEach((entry, i) => {
        if (isObject(entry) && Array.isArray(entry.checks)) {
          out.push({ path: `${at}${list}.${i}.checks`, checks: entry.checks });
        }
      });
    }
    const targets = node.targets;
    if (!Array.isArray(targets)) return;
    targets.forEach((target, i) => {
      walk(target, `${at}targets.${i}.`);
    });
  };
  walk(config, '');
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
