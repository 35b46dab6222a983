// Partials include partials: the graph a template reaches must be known (every name found) and free
// of loops. Checked when a prompt or partial is saved, so rendering never meets a loop; rendering
// also stops at one (the gateway renders what the snapshot holds, which the control plane checked).
import { TemplateError } from './template-error.js';
import { templateRefs } from './template-tokens.js';

/** The text of a partial by name, or undefined when there is none. */
export type PartialLookup = (name: string) => string | undefined;

/**
 * Walks every partial the texts include, depth first. `self` is the name of the partial being saved
 * (its own texts are `texts`, whatever `lookup` holds for it). Throws `unknown_partial` or
 * `partial_cycle` (names: the loop, first name repeated at the end). Returns every partial reached.
 */
export function checkPartials(texts: readonly string[], lookup: PartialLookup, self?: string): string[] {
  const reached: string[] = [];
  const done = new Set<string>();
  const visit = (name: string, path: string[]) => {
    if (path.includes(name)) {
      const loop = [...path.slice(path.indexOf(name)), name];
      throw new TemplateError(
        'partial_cycle',
        `partials include each other in a loop: ${loop.join(' -> ')}`,
        loop,
      );
    }
    if (done.has(name)) return;
    const text = name === self ? undefined : lookup(name);
    if (text === undefined) {
      throw new TemplateError('unknown_partial', `the template includes an unknown partial "${name}"`, [
        name,
      ]);
    }
    for (const next of templateRefs(text).partials) visit(next, [...path, name]);
    done.add(name);
    reached.push(name);
  };
  const start = self === undefined ? [] : [self];
  for (const text of texts) for (const name of templateRefs(text).partials) visit(name, start);
  return reached;
}
