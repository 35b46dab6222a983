// Saved guardrails whose checks carry header secrets (a webhook and a partner check), and the
// envelope they are sealed in, opened with the tests' MASTER_KEY: shared by the header tests.
import { openSecret, parseMasterKey, webhookHeadersAad } from '@aigw/secret-box';
import { MASTER_KEY } from '../../test/harness.js';

export const SECRET = 'whsec-9f8e7d6c5b4a3210-webhook-token';
export const PARTNER_SECRET = 'partner-key-0123456789abcdefXYZ';

/** A JSON check, a webhook check with two headers and a partner check with one. */
export const WEBHOOK_CHECKS = [
  { id: 'valid_json' },
  {
    id: 'webhook',
    parameters: {
      url: 'https://hooks.example.com/guard',
      headers: { Authorization: `Bearer ${SECRET}`, 'x-tenant': 'acme' },
    },
  },
  {
    id: 'partner.acme',
    parameters: {
      url: 'https://acme.example.com/scan',
      policyId: 'p1',
      headers: { 'x-api-key': PARTNER_SECRET },
    },
  },
];

const masterKey = parseMasterKey(MASTER_KEY);

/** The header values of guardrail `id` from its envelope. */
export function openedHeaders(id: string, envelope: Uint8Array | null | undefined): unknown {
  return JSON.parse(
    openSecret(masterKey, Buffer.from(envelope ?? []), webhookHeadersAad(id)).toString('utf8'),
  );
}
