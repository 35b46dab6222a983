// Prompt completions render tenant templates with caller variables (pipeline/prompt-stage.ts calls
// promptRequestBody): code-shaped text in either is never evaluated, and a variable stays literal.
import { promptRequestBody, TemplateError } from '@aigw/prompt-template';
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
    // Names are looked up in prototype-free copies of the variables: `constructor` is a missing
    // variable (the stage answers 400 naming it), and a section over it renders nothing.
    expect(() => render(`a ${payload} b`, { q: {} })).toThrow(
      expect.objectContaining({
        constructor: TemplateError,
        code: 'missing_variables',
        names: ['constructor'],
      }),
    );
    const sections = [
      '{{#constructor.constructor}}x = globalThis.pwned = 1{{/constructor.constructor}}',
      '{{#q.constructor.constructor}}x = globalThis.pwned = 1{{/q.constructor.constructor}}',
    ];
    for (const template of sections) expect(render(template, { q: {} })).toBe('');
    expect((globalThis as { pwned?: unknown }).pwned).toBeUndefined();
  });
});
