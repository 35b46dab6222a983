// Stage: a request with a config runs the config's strategy (routing/): cache, guardrails, targets
// with retries and fallbacks, each target's own limits. What happened goes into the context.
import type { ServerResponse } from 'node:http';
import type { NormalisedConfig } from '@aigw/config-schema';
import { eventProviderRef } from '../access/index.js';
import type { ServiceHeaders } from '../request/service-headers.js';
import type { ConfigRoute } from '../routing/config-route.js';
import type { RequestContext } from './request-context.js';
import { claimedFacts, type UsageClaims } from './usage-claims.js';

export async function callConfig(
  ctx: RequestContext,
  config: NormalisedConfig,
  configRoute: ConfigRoute,
  res: ServerResponse,
  claims: UsageClaims,
): Promise<void> {
  const extra = ctx.limitHeaders;
  if (extra) for (const name in extra) res.setHeader(name, extra[name] as string);
  const served = await configRoute(ctx.req, res, config, {
    method: ctx.method,
    path: ctx.path,
    search: ctx.search,
    service: ctx.service as ServiceHeaders,
    requestSink: ctx.facts.request,
    responseSink: ctx.facts.response,
    managed: ctx.access?.leaves,
    cacheScope: ctx.access?.identity.workspace.id,
    metadata: ctx.facts.metadata,
    preread: { body: ctx.body ?? Buffer.alloc(0), json: ctx.json },
    // The targets' own limits (control-plane mode) charge what the request's settle charges: one
    // claim for both.
    claimUsage: ctx.access && ((facts) => claimedFacts(ctx, claims, facts)),
  });
  const { facts } = ctx;
  facts.provider = served.provider;
  facts.customHost = served.customHost;
  // The target that answered, not the provider the headers named.
  if (ctx.access) facts.providerRef = eventProviderRef(served.providerRef);
  facts.routing = served.routing;
  if (served.gatewayError) facts.gatewayError = served.gatewayError;
  ctx.targetCharges = served.targetCharges;
  ctx.heldAnswer = served.heldAnswer;
  ctx.result = served.result;
}
