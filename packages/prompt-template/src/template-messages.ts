// A prompt's `string`: either plain text (one user message) or a JSON array of chat messages whose
// `content` fields are Mustache templates. The JSON is parsed before rendering, never after, so a
// variable's value can never change the message structure (no JSON injection).
import { TemplateError } from './template-error.js';

export interface TemplateMessage {
  readonly role: string;
  readonly content: string;
}

export const MESSAGE_ROLES = ['system', 'developer', 'user', 'assistant'] as const;
const ROLES: ReadonlySet<string> = new Set(MESSAGE_ROLES);

/** The messages of a template string; a `[`-led string must be a valid message array (400 otherwise). */
export function templateMessages(template: string): TemplateMessage[] {
  if (!template.trimStart().startsWith('[')) return [{ role: 'user', content: template }];
  let parsed: unknown;
  try {
    parsed = JSON.parse(template);
  } catch {
    throw new TemplateError(
      'invalid_template',
      'a template starting with "[" must be a JSON array of {"role","content"} messages',
    );
  }
  if (!Array.isArray(parsed) || parsed.length === 0) {
    throw new TemplateError('invalid_template', 'the template message array must not be empty');
  }
  return parsed.map((m, i) => {
    const message = m as { role?: unknown; content?: unknown } | null;
    if (
      message === null ||
      typeof message !== 'object' ||
      typeof message.role !== 'string' ||
      !ROLES.has(message.role) ||
      typeof message.content !== 'string' ||
      Object.keys(message).length !== 2
    ) {
      throw new TemplateError(
        'invalid_template',
        `template message ${i} must be {"role": one of ${MESSAGE_ROLES.join(', ')}, "content": a string}`,
      );
    }
    return { role: message.role, content: message.content };
  });
}
