// evaluateCondition: every operator, type mismatches, missing keys, nesting and field lookup.
import { describe, expect, it } from 'vitest';
import { evaluateCondition } from './query.js';
import { MAX_REGEX_SUBJECT_LENGTH } from './safe-regex.js';
import type { ConditionContext, ConditionQuery } from './types.js';

const context: ConditionContext = {
  metadata: { tier: 'gold', level: '7', ratio: '0.5', region: 'eu-west', flag: 'true', 'a.b': 'dotted' },
  params: {
    model: 'gpt-4o',
    temperature: 0.7,
    max_tokens: 1000,
    stream: true,
    user: null,
    messages: [{ role: 'system', content: 'be brief' }, { role: 'user' }],
    nested: { deep: { value: 42 } },
  },
};

const holds = (query: ConditionQuery): boolean => evaluateCondition(query, context);

describe('evaluateCondition', () => {
  it('$eq, and a bare value as $eq', () => {
    expect(holds({ 'metadata.tier': { $eq: 'gold' } })).toBe(true);
    expect(holds({ 'metadata.tier': 'gold' })).toBe(true);
    expect(holds({ 'metadata.tier': 'silver' })).toBe(false);
    expect(holds({ 'params.stream': true })).toBe(true);
    expect(holds({ 'params.user': null })).toBe(true);
    expect(holds({ 'params.max_tokens': { $eq: 1000 } })).toBe(true);
  });

  it('$ne', () => {
    expect(holds({ 'metadata.tier': { $ne: 'silver' } })).toBe(true);
    expect(holds({ 'metadata.tier': { $ne: 'gold' } })).toBe(false);
  });

  it('$gt, $gte, $lt, $lte on numbers', () => {
    expect(holds({ 'params.max_tokens': { $gt: 999 } })).toBe(true);
    expect(holds({ 'params.max_tokens': { $gt: 1000 } })).toBe(false);
    expect(holds({ 'params.max_tokens': { $gte: 1000 } })).toBe(true);
    expect(holds({ 'params.max_tokens': { $gte: 1001 } })).toBe(false);
    expect(holds({ 'params.temperature': { $lt: 0.8 } })).toBe(true);
    expect(holds({ 'params.temperature': { $lt: 0.7 } })).toBe(false);
    expect(holds({ 'params.temperature': { $lte: 0.7 } })).toBe(true);
    expect(holds({ 'params.temperature': { $lte: 0.6 } })).toBe(false);
  });

  it('orders strings by code unit when the operand is a string', () => {
    expect(holds({ 'params.model': { $gt: 'gpt-3' } })).toBe(true);
    expect(holds({ 'params.model': { $lt: 'gpt-3' } })).toBe(false);
    expect(holds({ 'metadata.region': { $gte: 'eu-west', $lte: 'eu-west' } })).toBe(true);
  });

  it('reads a decimal string as a number when the operand is a number (metadata arrives as text)', () => {
    expect(holds({ 'metadata.level': { $gt: 5 } })).toBe(true);
    expect(holds({ 'metadata.level': { $lte: 6 } })).toBe(false);
    expect(holds({ 'metadata.level': 7 })).toBe(true);
    expect(holds({ 'metadata.ratio': { $lt: 1 } })).toBe(true);
    expect(holds({ 'metadata.level': { $in: [1, 7] } })).toBe(true);
    expect(holds({ 'metadata.tier': { $gt: 0 } })).toBe(false);
  });

  it('several operators on one field must all hold', () => {
    expect(holds({ 'params.temperature': { $gt: 0.5, $lt: 1 } })).toBe(true);
    expect(holds({ 'params.temperature': { $gt: 0.5, $lt: 0.6 } })).toBe(false);
  });

  it('$in and $nin', () => {
    expect(holds({ 'params.model': { $in: ['gpt-4o', 'o1'] } })).toBe(true);
    expect(holds({ 'params.model': { $in: ['o1'] } })).toBe(false);
    expect(holds({ 'params.model': { $nin: ['o1'] } })).toBe(true);
    expect(holds({ 'params.model': { $nin: ['gpt-4o'] } })).toBe(false);
    expect(holds({ 'params.user': { $in: [null] } })).toBe(true);
  });

  it('$regex on strings only', () => {
    expect(holds({ 'params.model': { $regex: '^gpt-4' } })).toBe(true);
    expect(holds({ 'params.model': { $regex: '^claude' } })).toBe(false);
    expect(holds({ 'params.max_tokens': { $regex: '1000' } })).toBe(false);
    expect(holds({ 'metadata.region': { $regex: '^eu-(west|north)$' } })).toBe(true);
  });

  it('$regex never matches a string longer than MAX_REGEX_SUBJECT_LENGTH', () => {
    const at = (length: number): ConditionContext => ({ metadata: { id: 'a'.repeat(length) }, params: {} });
    expect(evaluateCondition({ 'metadata.id': { $regex: '^a' } }, at(MAX_REGEX_SUBJECT_LENGTH))).toBe(true);
    expect(evaluateCondition({ 'metadata.id': { $regex: '^a' } }, at(MAX_REGEX_SUBJECT_LENGTH + 1))).toBe(
      false,
    );
  });

  it('type mismatches never match and never coerce booleans or text', () => {
    expect(holds({ 'metadata.flag': true })).toBe(false);
    expect(holds({ 'params.stream': 'true' })).toBe(false);
    expect(holds({ 'params.max_tokens': '1000' })).toBe(false);
    expect(holds({ 'params.max_tokens': { $gt: '999' } })).toBe(false);
    expect(holds({ 'params.stream': { $gt: 0 } })).toBe(false);
    expect(holds({ 'params.messages': { $eq: 'x' } })).toBe(false);
    expect(holds({ 'params.user': { $lt: 1 } })).toBe(false);
  });

  it('a missing field matches only $ne and $nin', () => {
    const missing = 'metadata.absent';
    expect(holds({ [missing]: 'x' })).toBe(false);
    expect(holds({ [missing]: null })).toBe(false);
    expect(holds({ [missing]: { $gt: 0 } })).toBe(false);
    expect(holds({ [missing]: { $gte: 0 } })).toBe(false);
    expect(holds({ [missing]: { $lt: 0 } })).toBe(false);
    expect(holds({ [missing]: { $lte: 0 } })).toBe(false);
    expect(holds({ [missing]: { $in: ['x'] } })).toBe(false);
    expect(holds({ [missing]: { $regex: '.*' } })).toBe(false);
    expect(holds({ [missing]: { $ne: 'x' } })).toBe(true);
    expect(holds({ [missing]: { $nin: ['x'] } })).toBe(true);
  });

  it('walks params paths through objects and array indexes, never the prototype', () => {
    expect(holds({ 'params.messages.0.role': 'system' })).toBe(true);
    expect(holds({ 'params.messages.1.content': { $ne: 'x' } })).toBe(true);
    expect(holds({ 'params.messages.1.content': 'x' })).toBe(false);
    expect(holds({ 'params.messages.5.role': 'user' })).toBe(false);
    expect(holds({ 'params.nested.deep.value': { $gte: 42 } })).toBe(true);
    expect(holds({ 'params.model.length': 6 })).toBe(false);
    expect(holds({ 'params.constructor': { $ne: null } })).toBe(true);
    expect(holds({ 'params.toString': { $eq: null } })).toBe(false);
  });

  it('takes everything after "metadata." as one key', () => {
    expect(holds({ 'metadata.a.b': 'dotted' })).toBe(true);
    expect(holds({ 'metadata.constructor': { $ne: null } })).toBe(true);
  });

  it('entries of one query, $and and $or combine as logic says', () => {
    expect(holds({ 'metadata.tier': 'gold', 'params.stream': true })).toBe(true);
    expect(holds({ 'metadata.tier': 'gold', 'params.stream': false })).toBe(false);
    expect(holds({ $and: [{ 'metadata.tier': 'gold' }, { 'params.model': 'gpt-4o' }] })).toBe(true);
    expect(holds({ $and: [{ 'metadata.tier': 'gold' }, { 'params.model': 'o1' }] })).toBe(false);
    expect(holds({ $or: [{ 'metadata.tier': 'silver' }, { 'params.model': 'gpt-4o' }] })).toBe(true);
    expect(holds({ $or: [{ 'metadata.tier': 'silver' }, { 'params.model': 'o1' }] })).toBe(false);
    expect(
      holds({
        $or: [
          { $and: [{ 'metadata.tier': 'gold' }, { 'metadata.level': { $gt: 9 } }] },
          { 'params.stream': true },
        ],
      }),
    ).toBe(true);
    expect(holds({ $or: [{ 'metadata.tier': 'gold' }], 'params.stream': false })).toBe(false);
  });

  it('an empty query holds (validation refuses one in a config)', () => {
    expect(holds({})).toBe(true);
  });

  it('fields outside metadata and params never match', () => {
    expect(evaluateCondition({ ['url.pathname' as 'metadata.x']: '/v1/chat' }, context)).toBe(false);
  });
});
