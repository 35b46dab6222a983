// What a Mustache template refers to, read from the `mustache` package's own parser: the partials it
// includes (`{{> name}}`) and the variables it needs at top level. Variables used only inside a
// section (`{{#x}}...{{/x}}`, `{{^x}}`) are optional: an absent section is valid Mustache.
import Mustache from 'mustache';
import { TemplateError } from './template-error.js';

type Token = [string, string, number, number, Token[]?, ...unknown[]];

function parse(text: string): Token[] {
  try {
    return Mustache.parse(text) as unknown as Token[];
  } catch (err) {
    throw new TemplateError(
      'invalid_template',
      `the template is not valid Mustache: ${(err as Error).message}`,
    );
  }
}

export interface TemplateRefs {
  /** Partials included anywhere in the template. */
  readonly partials: ReadonlySet<string>;
  /** Variables read outside any section (their first dotted segment). */
  readonly required: ReadonlySet<string>;
}

/** The partials and required variables of one template (partials' own contents not included). */
export function templateRefs(text: string): TemplateRefs {
  const partials = new Set<string>();
  const required = new Set<string>();
  const walk = (tokens: Token[], inSection: boolean) => {
    for (const token of tokens) {
      const [type, value] = token;
      if (type === '>') partials.add(value);
      else if ((type === 'name' || type === '&' || type === '{') && !inSection && value !== '.') {
        required.add(value.split('.')[0] ?? value);
      } else if ((type === '#' || type === '^') && token[4]) walk(token[4], true);
    }
  };
  walk(parse(text), false);
  return { partials, required };
}
