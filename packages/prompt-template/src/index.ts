// Prompt templates: Mustache (the maintained `mustache` package) with partials, parsed, checked and
// rendered the same way by the control plane (save, render) and the gateway (prompt completions).
export { checkPartials, type PartialLookup } from './partial-graph.js';
export { type RenderInput, renderMessages, requiredVariables, type Variables } from './render.js';
export { type PromptVersionView, promptRequestBody } from './request-body.js';
export { TemplateError, type TemplateErrorCode } from './template-error.js';
export { MESSAGE_ROLES, type TemplateMessage, templateMessages } from './template-messages.js';
export { type TemplateRefs, templateRefs } from './template-tokens.js';
