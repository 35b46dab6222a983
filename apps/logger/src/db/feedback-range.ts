// What the feedback table accepts (its check constraint, migration 0003: value -10..10; weight 0..1
// by the feedback API): one definition for the API, which refuses anything else, and for the
// guardrail feedback of request events, which leaves anything else out.

/** An integer from -10 to 10. */
export function feedbackValueInRange(value: number): boolean {
  return Number.isInteger(value) && value >= -10 && value <= 10;
}

/** A finite number from 0 to 1. */
export function feedbackWeightInRange(weight: number): boolean {
  return Number.isFinite(weight) && weight >= 0 && weight <= 1;
}
