// Assertions shared by the enforcement end-to-end tests: waiting for a key's answer on both
// replicas, and recognising a refusal made by the gateway.
import { expect } from 'vitest';
import { chat, pollUntil, type Reply } from './enforcement-client.test-support.js';
import type { E2e } from './enforcement-stack.test-support.js';

export const replicas = [0, 1] as const;

/** Waits until `key` gets `status` on both replicas; returns each replica's first-hit time. */
export async function onBothReplicas(
  { stack, tenant }: E2e,
  key: string,
  status: number,
  what: string,
): Promise<number[]> {
  return Promise.all(
    replicas.map(async (index) => {
      const hit = await pollUntil(
        () => chat(stack.gatewayBase(index), { key, provider: tenant.provider }),
        (reply) => reply.status === status,
        { what: `${what} on replica ${index}`, intervalMs: 2 },
      );
      return hit.at;
    }),
  );
}

/** A refusal made by the gateway (not the provider), with its status, type and code. */
export function expectGatewayError(
  reply: Reply,
  status: number,
  type: string,
  codes: readonly string[],
): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  expect(reply.headers.get('x-service-gateway-error')).toBe('true');
  expect(reply.body.error).toMatchObject({ type, message: expect.any(String) });
  expect(codes).toContain(reply.body.error.code);
}
