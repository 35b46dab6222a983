// Public surface of the SSRF-safe outbound host module (see docs/custom-hosts.md).
export { blockedRange, isBlockedAddress, type ParsedIp, parseIp } from './address-ranges.js';
export { type Cidr, carriedIpv4, cidrContains, parseCidr } from './carried-ipv4.js';
export { CUSTOM_HOST_HEADER, isSsrfError, type SsrfErrorCode, ssrfError } from './errors.js';
export { bareHostname, hostKey } from './host-key.js';
export { type CustomHostOptions, MAX_CUSTOM_HOST_LENGTH, parseCustomHost } from './host-url.js';
export { createPinnedAgent, type PinnedAgentOptions, pinnedLookup } from './pinned-agent.js';
export {
  createPinnedDispatcher,
  type PinnedDispatcherOptions,
  type PinnedFetch,
  pinnedFetch,
} from './pinned-dispatcher.js';
export {
  type LookupFn,
  normaliseAllowlist,
  type PinnedTarget,
  type ResolvedAddress,
  type ResolveOptions,
  resolveCustomHost,
  resolveSafeTarget,
  type SafeTarget,
  systemLookup,
} from './resolve.js';
export { validateHostnameLabel } from './validate-label.js';
