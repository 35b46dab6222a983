// Stage: where the request goes. Control-plane mode resolves it from the snapshot (a saved or
// inline config, an `@slug` or virtual key, or the provider headers); standalone reads the config
// header or the provider headers. A plain target's custom host is checked against SSRF here.
import type { AccessResolver } from '../access/index.js';
import { cloudFor, eventIdentity, eventProviderRef, managedRef } from '../access/index.js';
import { gatewayError } from '../errors.js';
import { readCloudOptions } from '../providers/cloud-headers.js';
import { readConfigHeader } from '../request/config-header.js';
import { H, type ServiceHeaders } from '../request/service-headers.js';
import type { CustomHostCache } from '../upstream/custom-host-cache.js';
import { bearer, resolveProvider } from '../upstream/target.js';
import type { Caller } from './identify.js';
import type { PlainTarget, RequestContext } from './request-context.js';

export interface RouteDeps {
  readonly access: AccessResolver | undefined;
  readonly customHosts: CustomHostCache;
  readonly maxBodyBytes: number;
}

/** Sets `ctx.route` (and the access facts); a promise only while a new custom host is resolved. */
export function resolveRoute(
  ctx: RequestContext,
  caller: Caller | undefined,
  deps: RouteDeps,
): void | Promise<void> {
  const service = ctx.service as ServiceHeaders;
  const headers = ctx.req.headers;
  if (caller && deps.access) {
    const access = deps.access.resolve(caller.snapshot, caller.identity, headers, service);
    ctx.access = access;
    const facts = ctx.facts;
    facts.metadata = access.metadata;
    facts.captureBodies &&= access.captureBodies;
    facts.identity = eventIdentity(access);
    facts.providerRef = eventProviderRef(managedRef(access.route, access));
    facts.pricing = access;
    if (access.route.kind === 'config') {
      ctx.route = { kind: 'config', config: access.route.config };
      return;
    }
  } else {
    if (headers[H.deployment] !== undefined) {
      throw gatewayError(
        'config_unavailable',
        `${H.deployment} names a deployment; deployments need a control plane (CONTROL_PLANE_GRPC_URL)`,
        { param: H.deployment },
      );
    }
    const config = readConfigHeader(headers);
    if (config) {
      ctx.route = { kind: 'config', config };
      return;
    }
  }
  return plainTarget(ctx, service, deps);
}

function plainTarget(ctx: RequestContext, service: ServiceHeaders, deps: RouteDeps): void | Promise<void> {
  const route = ctx.access?.route;
  const managed = route?.kind === 'managed' ? route.target : undefined;
  const provider = managed
    ? managed.provider
    : resolveProvider(service.provider, service.customHost !== undefined);
  ctx.facts.provider = provider.id;
  const declared = Number(ctx.req.headers['content-length'] ?? 0);
  if (declared > deps.maxBodyBytes) {
    throw gatewayError('payload_too_large', `The request body is larger than ${deps.maxBodyBytes} bytes`);
  }
  const headers = ctx.req.headers;
  const cloud = readCloudOptions(headers);
  const build = (host: PlainTarget['host']) => {
    const target: PlainTarget = {
      provider,
      managed,
      host,
      base: {
        method: ctx.method,
        path: ctx.path,
        search: ctx.search,
        headers,
        token: managed ? managed.token : bearer(headers.authorization),
        cloud: managed ? cloudFor(managed, cloud, '') : cloud,
        customHost: host?.url,
      },
    };
    if (host) ctx.facts.customHost = host.url.origin;
    ctx.route = { kind: 'target', target };
  };
  // A managed provider's host is its own (credential-route.ts refuses a custom host header).
  const raw = managed ? managed.options.customHost : service.customHost;
  if (raw === undefined) return build(undefined);
  const cached = deps.customHosts.cached(raw);
  if (cached) return build(cached);
  return deps.customHosts.check(raw, service.requestTimeoutMs).then(build);
}
