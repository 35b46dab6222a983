// What saved guardrails add to a config request in control-plane mode: resolving a config's refs
// when the snapshot has not changed them (the common case), and after a snapshot change elsewhere.
import { randomUUID } from 'node:crypto';
import type { Entity } from '@aigw/proto';
import { createLogger } from '@aigw/runtime';
import { bench, describe } from 'vitest';
import { savedGuardrail } from '../../test/control-plane-entities.js';
import { parseInlineConfig } from '../request/config-header.js';
import { Snapshot } from '../snapshot/index.js';
import { GuardrailHeaderStore } from './guardrail-headers.js';
import { resolveGuardrailRefs } from './saved-guardrails.js';

const ORG = randomUUID();
const WS = randomUUID();

function guardrail(slug: string, version = 1): Entity {
  return savedGuardrail(
    randomUUID(),
    ORG,
    WS,
    slug,
    { checks: [{ id: 'contains', parameters: { words: ['secret'], operator: 'none' } }] },
    { version },
  );
}

const guards = Array.from({ length: 1000 }, (_, i) => guardrail(`g-${i}`));
let snapshot = Snapshot.of(guards, 1);
const config = parseInlineConfig(
  JSON.stringify({
    strategy: { mode: 'fallback' },
    input_guardrails: ['g-1', 'g-2'],
    targets: [{ provider: 'openai' }, { provider: 'anthropic', output_guardrails: ['g-3'] }],
  }),
  'managed',
);
const plain = parseInlineConfig(JSON.stringify({ provider: 'openai' }), 'managed');
let n = 0;
const headers = new GuardrailHeaderStore(undefined, createLogger({ app: 'bench', level: 'silent' }));

describe('saved guardrail refs per request', () => {
  bench('config without refs', () => {
    resolveGuardrailRefs(plain, snapshot, ORG, WS, headers);
  });

  bench('3 refs, unchanged snapshot (resolved tree reused)', () => {
    resolveGuardrailRefs(config, snapshot, ORG, WS, headers);
  });

  bench('3 refs, one of them edited in every snapshot (tree rebuilt)', () => {
    snapshot = snapshot.withChanges([{ ...guardrail('g-2', ++n + 1), id: (guards[2] as Entity).id }]);
    resolveGuardrailRefs(config, snapshot, ORG, WS, headers);
  });
});
