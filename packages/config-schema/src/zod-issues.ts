// Runs a zod schema on one value and turns its issues into config issues with our own stable wording.
import type { z } from 'zod';
import type { ConfigIssueCode } from './config-issue.js';
import { describeType, type IssueSink, type Segment } from './issues.js';
import { unknownKeyText } from './unknown-keys.js';

type ZodIssue = z.core.$ZodIssue;

/** Parse `value` at `base`; on failure record every issue and return undefined. */
export function validateWith<S extends z.ZodType>(
  schema: S,
  value: unknown,
  base: readonly Segment[],
  sink: IssueSink,
): z.output<S> | undefined {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  for (const issue of result.error.issues) addZodIssue(issue, base, sink);
  return undefined;
}

function addZodIssue(issue: ZodIssue, base: readonly Segment[], sink: IssueSink): void {
  const segments = [...base, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))];
  if (issue.code === 'unrecognized_keys') {
    for (const key of issue.keys) sink.add([...segments, key], 'unknown_key', unknownKeyText(key));
    return;
  }
  const [code, text] = translate(issue);
  sink.add(segments, code, text);
}

const ARTICLE: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean',
  object: 'an object',
  record: 'an object',
  array: 'an array',
};

function translate(issue: ZodIssue): [ConfigIssueCode, string] {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined && issue.expected !== 'int') return ['required', 'is required'];
      if (issue.expected === 'int' && typeof issue.input === 'number') {
        return ['invalid_type', 'must be an integer'];
      }
      return [
        'invalid_type',
        `must be ${ARTICLE[issue.expected] ?? issue.expected}, got ${describeType(issue.input)}`,
      ];
    case 'too_small':
      return ['too_small', boundText('at least', 'more than', issue.origin, Number(issue.minimum), issue)];
    case 'too_big':
      return ['too_big', boundText('at most', 'less than', issue.origin, Number(issue.maximum), issue)];
    case 'invalid_value':
      if (issue.input === undefined) {
        return ['required', `is required: one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`];
      }
      return ['invalid_value', `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`];
    case 'custom': {
      const code = (issue.params?.code as ConfigIssueCode | undefined) ?? 'invalid_value';
      return [code, issue.message];
    }
    case 'invalid_format':
      return ['invalid_format', issue.message];
    case 'invalid_key': {
      const inner = issue.issues[0];
      return inner ? translate(inner) : ['invalid_value', 'is not a valid key'];
    }
    default:
      return ['invalid_value', 'is not valid'];
  }
}

function boundText(
  inclusiveWord: string,
  exclusiveWord: string,
  origin: string,
  bound: number,
  issue: { readonly inclusive?: boolean },
): string {
  const word = issue.inclusive === false ? exclusiveWord : inclusiveWord;
  if (origin === 'string') {
    return bound === 1 && word === 'at least' ? 'must not be empty' : `must be ${word} ${bound} characters`;
  }
  if (origin === 'array' || origin === 'set') {
    return bound === 1 && word === 'at least' ? 'must not be empty' : `must have ${word} ${bound} items`;
  }
  return `must be ${word} ${bound}`;
}
