// Runs config regexes over long texts within a time budget. Config regexes run on a linear-time
// engine (re2js, see safe-regex.ts in @aigw/config-schema), but linear in the text times the program
// size: a pattern near the size limit whose DFA gives up (`[a-h]*a[a-h]{900}z`) still takes seconds
// over 64 KiB, so long subjects run under a V8 interrupt and every search is charged to a budget.
import vm from 'node:vm';
import { type ConfigRegex, MAX_REGEX_SUBJECT_LENGTH } from '@aigw/config-schema';

/** Longer texts are not searched: the check fails (closed) with an error. */
export const MAX_GUARDRAIL_REGEX_SUBJECT_LENGTH = 64 * 1024;
/** Default time all regex searches of one guardrail run may take together. */
export const DEFAULT_REGEX_BUDGET_MS = 100;

export class RegexLimitError extends Error {
  override name = 'RegexLimitError';
}

export interface RegexRunner {
  /** `re.test(subject)`; throws RegexLimitError when the subject is too long or the budget is spent. */
  test(re: ConfigRegex, subject: string): boolean;
}

// One context for every run: searches are synchronous, so they never overlap.
// The interrupt stops whatever JavaScript runs inside runInContext, the engine's own code included.
const sandbox = vm.createContext({ re: undefined as ConfigRegex | undefined, subject: '' });
const search = new vm.Script('re.test(subject)');

/**
 * Short subjects (up to the config package's own `$regex` bound) run directly: even a pattern at the
 * program size limit costs tens of milliseconds over them at worst. Longer ones run with `timeout`
 * set to what is left of the budget; a timer thread interrupts V8 mid-search. Both are charged to
 * the budget.
 */
export function createRegexRunner(budgetMs: number = DEFAULT_REGEX_BUDGET_MS): RegexRunner {
  let spent = 0;
  return {
    test(re, subject) {
      if (subject.length > MAX_GUARDRAIL_REGEX_SUBJECT_LENGTH) {
        throw new RegexLimitError(
          `the text is longer than ${MAX_GUARDRAIL_REGEX_SUBJECT_LENGTH} characters, the regex search limit`,
        );
      }
      const left = budgetMs - spent;
      if (left <= 0) throw budgetSpent(budgetMs);
      const started = performance.now();
      try {
        if (subject.length <= MAX_REGEX_SUBJECT_LENGTH) return re.test(subject);
        sandbox.re = re;
        sandbox.subject = subject;
        try {
          return search.runInContext(sandbox, { timeout: Math.max(1, Math.ceil(left)) }) === true;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw err;
          // The watchdog's clock and ours differ by a little: an interrupted search spends it all.
          spent = Number.POSITIVE_INFINITY;
          throw budgetSpent(budgetMs);
        } finally {
          sandbox.re = undefined;
          sandbox.subject = '';
        }
      } finally {
        spent += performance.now() - started;
      }
    },
  };
}

function budgetSpent(budgetMs: number): RegexLimitError {
  return new RegexLimitError(
    `regex searches took longer than the ${budgetMs} ms budget of this guardrail run`,
  );
}
