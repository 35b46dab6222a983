// Every built-in check, passing and failing, run the way the pipeline runs it.
import type { GuardrailCheck } from '@aigw/config-schema';
import { describe, expect, it } from 'vitest';
import { parseJsonText } from './checks.js';
import { runGuardrails } from './run-guardrails.js';
import type { CheckResult, GuardrailContext, WebhookCaller } from './types.js';

const noWebhook: WebhookCaller = async () => ({ verdict: false, error: 'no webhook in this test' });

const chat = (text: string, extra: Partial<GuardrailContext> = {}): GuardrailContext => ({
  phase: 'input',
  requestJson: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: text }] },
  metadata: { team: 'search' },
  provider: 'openai',
  ...extra,
});

async function check(c: GuardrailCheck, ctx: GuardrailContext): Promise<CheckResult> {
  const outcome = await runGuardrails([{ type: 'inline', checks: [c], deny: false, async: false }], ctx, {
    webhook: noWebhook,
  });
  return outcome.results[0]!.checks[0]!;
}

async function verdicts(c: GuardrailCheck, pass: GuardrailContext, fail: GuardrailContext) {
  return [(await check(c, pass)).verdict, (await check(c, fail)).verdict];
}

describe('built-in checks', () => {
  it('regex_match fails when the pattern does not match', async () => {
    const c: GuardrailCheck = { id: 'regex_match', parameters: { pattern: '^order #\\d+', not: false } };
    expect(await verdicts(c, chat('order #42 status?'), chat('what is my status?'))).toEqual([true, false]);
  });

  it('regex_match with not fails when the pattern matches', async () => {
    const c: GuardrailCheck = {
      id: 'regex_match',
      parameters: { pattern: 'sk-[A-Za-z0-9]{20,}', not: true },
    };
    const secret = chat('my key is sk-abcdefghijklmnopqrstuvwx');
    expect(await verdicts(c, chat('no secrets here'), secret)).toEqual([true, false]);
    expect((await check(c, secret)).data).toEqual({ matched: true });
  });

  it('regex_match fails closed on text past the search limit', async () => {
    const c: GuardrailCheck = { id: 'regex_match', parameters: { pattern: 'secret', not: true } };
    const result = await check(c, chat('x'.repeat(70_000)));
    expect(result.verdict).toBe(false);
    expect(result.error).toMatch(/longer than 65536/);
  });

  it('contains with any, all and none', async () => {
    const words = ['Refund', 'invoice'];
    const any: GuardrailCheck = { id: 'contains', parameters: { words, operator: 'any' } };
    const all: GuardrailCheck = { id: 'contains', parameters: { words, operator: 'all' } };
    const none: GuardrailCheck = { id: 'contains', parameters: { words, operator: 'none' } };
    expect(await verdicts(any, chat('I want a REFUND'), chat('hello'))).toEqual([true, false]);
    expect(await verdicts(all, chat('refund my invoice'), chat('refund please'))).toEqual([true, false]);
    expect(await verdicts(none, chat('hello'), chat('the invoice'))).toEqual([true, false]);
    expect((await check(all, chat('refund please'))).data).toEqual({ found: ['Refund'] });
  });

  it('not_contains is the negation of contains with the same operator', async () => {
    const any: GuardrailCheck = {
      id: 'not_contains',
      parameters: { words: ['password', 'api key'], operator: 'any' },
    };
    expect(await verdicts(any, chat('hello'), chat('my API key is ...'))).toEqual([true, false]);
    const all: GuardrailCheck = { id: 'not_contains', parameters: { words: ['a1', 'b2'], operator: 'all' } };
    expect(await verdicts(all, chat('only a1'), chat('a1 and b2'))).toEqual([true, false]);
  });

  it('word_count checks an inclusive range', async () => {
    const c: GuardrailCheck = { id: 'word_count', parameters: { min: 2, max: 4 } };
    expect(await verdicts(c, chat('  two\twords\n'), chat('one'))).toEqual([true, false]);
    expect((await check(c, chat('a b c d e'))).verdict).toBe(false);
    expect((await check(c, chat('a b c d'))).data).toEqual({ count: 4 });
  });

  it('character_count counts characters, not UTF-16 units', async () => {
    const c: GuardrailCheck = { id: 'character_count', parameters: { max: 3 } };
    expect(await verdicts(c, chat('😀😀😀'), chat('abcd'))).toEqual([true, false]);
    const min: GuardrailCheck = { id: 'character_count', parameters: { min: 1 } };
    expect(await verdicts(min, chat('a'), chat(''))).toEqual([true, false]);
  });

  it('valid_json accepts JSON text and a single fenced JSON block', async () => {
    const c: GuardrailCheck = { id: 'valid_json', parameters: {} };
    const out = (text: string) => chat('q', { phase: 'output', responseText: text });
    expect(await verdicts(c, out(' {"a": 1} '), out('{"a": 1'))).toEqual([true, false]);
    expect((await check(c, out('```json\n{"a": 1}\n```'))).verdict).toBe(true);
    expect((await check(c, out('here you go: {"a": 1}'))).verdict).toBe(false);
  });

  it('json_schema validates the answer and lists errors by path', async () => {
    const schema = { type: 'object', required: ['city'], properties: { city: { type: 'string' } } };
    const c: GuardrailCheck = { id: 'json_schema', parameters: { schema } };
    const answer = (content: string) =>
      chat('q', {
        phase: 'output',
        responseJson: { choices: [{ message: { role: 'assistant', content } }] },
      });
    expect(await verdicts(c, answer('{"city":"Oslo"}'), answer('{"town":"Oslo"}'))).toEqual([true, false]);
    expect((await check(c, answer('{"city":1}'))).data).toEqual({
      errors: [{ path: '/city', message: 'must be string' }],
    });
    expect((await check(c, answer('not json'))).explanation).toBe('the text is not valid JSON');
  });

  it('json_schema fails closed on a schema the config check would refuse', async () => {
    const c: GuardrailCheck = { id: 'json_schema', parameters: { schema: { pattern: '(a)\\1' } } };
    const result = await check(c, chat('"aaa"'));
    expect(result.verdict).toBe(false);
    expect(result.error).toMatch(/the JSON schema is refused: the pattern is refused/);
  });

  it('pii reports categories and counts, never the values', async () => {
    const c: GuardrailCheck = { id: 'pii', parameters: { categories: ['email', 'credit_card'] } };
    const leaky = chat('mail jane@example.com, card 4111 1111 1111 1111');
    expect(await verdicts(c, chat('nothing personal, call +14155552671'), leaky)).toEqual([true, false]);
    const result = await check(c, leaky);
    expect(result.data).toEqual({
      categories: ['email', 'credit_card'],
      counts: { email: 1, credit_card: 1 },
    });
    expect(JSON.stringify(result)).not.toMatch(/jane|4111/);
  });

  it('model_allowlist reads the context model, else the body model', async () => {
    const c: GuardrailCheck = {
      id: 'model_allowlist',
      parameters: { models: ['gpt-4o-mini', 'claude-3-haiku'] },
    };
    expect(await verdicts(c, chat('q'), chat('q', { model: 'gpt-4o' }))).toEqual([true, false]);
    const noModel = await check(c, { ...chat('q'), requestJson: { messages: [] } });
    expect(noModel.verdict).toBe(false);
    expect(noModel.explanation).toBe('the request names no model');
  });

  it('required_metadata_keys lists the missing keys', async () => {
    const c: GuardrailCheck = { id: 'required_metadata_keys', parameters: { keys: ['team', 'user'] } };
    const withBoth = chat('q', { metadata: { team: 't', user: 'u' } });
    expect(await verdicts(c, withBoth, chat('q'))).toEqual([true, false]);
    expect((await check(c, chat('q'))).data).toEqual({ missing: ['user'] });
  });
});

describe('parseJsonText', () => {
  it('parses plain and fenced JSON only', () => {
    expect(parseJsonText('[1,2]')).toEqual({ ok: true, value: [1, 2] });
    expect(parseJsonText('```\n{"a":true}\n```')).toEqual({ ok: true, value: { a: true } });
    expect(parseJsonText('```json\n{"a":1}\n```\nand more')).toEqual({ ok: false });
  });
});
