// The chat-completions body a prompt version makes: its parameters, its model, the caller's overrides
// (stream, max_tokens, ...) over both, and the rendered messages. One function for the control plane's
// render endpoint and the gateway's prompt completions, so both give the same body.
import type { PartialLookup } from './partial-graph.js';
import { renderMessages, type Variables } from './render.js';
import { TemplateError } from './template-error.js';

export interface PromptVersionView {
  readonly template: string;
  /** Empty or undefined: the overrides must name the model. */
  readonly model?: string | undefined;
  readonly parameters?: Readonly<Record<string, unknown>> | undefined;
  readonly defaults?: Variables | undefined;
}

export function promptRequestBody(
  version: PromptVersionView,
  variables: Variables | undefined,
  overrides: Readonly<Record<string, unknown>>,
  partials: PartialLookup,
): Record<string, unknown> {
  if ('messages' in overrides) {
    throw new TemplateError('invalid_override', 'messages come from the prompt: send variables instead', [
      'messages',
    ]);
  }
  const messages = renderMessages({
    template: version.template,
    defaults: version.defaults,
    variables,
    partials,
  });
  return {
    ...(version.parameters ?? {}),
    ...(version.model ? { model: version.model } : {}),
    ...overrides,
    messages,
  };
}
