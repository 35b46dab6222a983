// A saved guardrail's definition: checks validated by the config schema's rules (the catalogue and
// third-party `partner.<name>` checks, as inline guardrails), and the actions taken on the result.
import { CHECK_IDS_TEXT, checkParameters, guardrailAction } from '@aigw/config-schema';
import { z } from 'zod';

/** Checks per guardrail: the limit inline guardrails have (docs/config.md, Limits). */
export const MAX_CHECKS = 20;

const check = z
  .strictObject({
    id: z.string().max(80),
    parameters: z.record(z.string(), z.unknown()).optional(),
  })
  .transform((input, ctx) => {
    const schema = checkParameters(input.id);
    if (!schema) {
      ctx.addIssue({ code: 'custom', path: ['id'], message: `must be one of ${CHECK_IDS_TEXT}` });
      return z.NEVER;
    }
    const parsed = schema.safeParse(input.parameters ?? {});
    if (parsed.success) return { id: input.id, parameters: parsed.data as Record<string, unknown> };
    for (const issue of parsed.error.issues) {
      ctx.addIssue({ code: 'custom', message: issue.message, path: ['parameters', ...issue.path] });
    }
    return z.NEVER;
  });

export const actionsSchema = z.strictObject({
  /** A failed check answers 446 instead of passing the request on with 246. */
  deny: z.boolean().default(false),
  /** Feedback recorded on the request's log (the rule inline guardrails follow: @aigw/config-schema). */
  on_fail: guardrailAction.optional(),
  on_success: guardrailAction.optional(),
});

export const checksSchema = z.array(check).min(1).max(MAX_CHECKS);

export type GuardrailCheckInput = z.output<typeof check>;
export type GuardrailActions = z.output<typeof actionsSchema>;

export interface GuardrailDefinition {
  readonly checks: readonly GuardrailCheckInput[];
  readonly actions: GuardrailActions;
  /** Runs without holding the request: it can report, never deny. */
  readonly async: boolean;
}

/** The rule inline guardrails follow too: an async guardrail does not hold the request, so cannot deny. */
export function definitionProblem(
  definition: GuardrailDefinition,
): { message: string; param: string } | null {
  if (definition.async && definition.actions.deny) {
    return {
      message: 'body.actions.deny: an async guardrail cannot deny: it does not hold the request',
      param: 'body.actions.deny',
    };
  }
  return null;
}
