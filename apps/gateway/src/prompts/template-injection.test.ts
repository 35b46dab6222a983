// Prompt completions render tenant templates with caller variables (pipeline/prompt-stage.ts calls
// promptRequestBody): code-shaped text in either is never evaluated, and a variable stays literal.
import { promptRequestBody } from '@aigw/prompt-template';
import { afterEach, describe, expect, it } from 'vitest';

const payload = "{{constructor.constructor('globalThis.pwned = 1')()}}";
const noPartials = () => undefined;

function render(template: string, variables: Record<string, unknown>) {
  const body = promptRequestBody({ template, model: 'gpt-4o' }, variables, {}, noPartials);
  return (body.messages as { content: string }[])[0]?.content;
}

afterEach(() => {
  delete (globalThis as { pwned?: unknown }).pwned;
});

describe('hostile prompt text', () => {
  it('a variable holding Mustache or JS is inserted as literal text', () => {
    expect(render('Q: {{q}}', { q: payload })).toBe(`Q: ${payload}`);
    expect(render('Q: {{q}}', { q: '{{> secret}} {{#x}}y{{/x}}' })).toBe('Q: {{> secret}} {{#x}}y{{/x}}');
    expect((globalThis as { pwned?: unknown }).pwned).toBeUndefined();
  });

  it('a template reaching for the Function constructor evaluates nothing', () => {
    const templates = [
      `a ${payload} b`,
      '{{#constructor.constructor}}x = globalThis.pwned = 1{{/constructor.constructor}}',
      '{{#q.constructor.constructor}}x = globalThis.pwned = 1{{/q.constructor.constructor}}',
    ];
    for (const template of templates) {
      const out = render(template, { q: {} });
      expect(out).not.toContain('function');
      expect((globalThis as { pwned?: unknown }).pwned).toBeUndefined();
    }
  });
});
