// The one error a prompt template can raise: a code the APIs map to 400, and the names it concerns.
export type TemplateErrorCode =
  | 'invalid_template'
  | 'unknown_partial'
  | 'partial_cycle'
  | 'missing_variables'
  | 'invalid_override';

export class TemplateError extends Error {
  constructor(
    readonly code: TemplateErrorCode,
    message: string,
    /** The variables missing, the partials of a loop, or the unknown partial. */
    readonly names: readonly string[] = [],
  ) {
    super(message);
    this.name = 'TemplateError';
  }
}
