// Public surface of the SSRF-safe custom-host module (see docs/custom-hosts.md).
export { blockedRange, isBlockedAddress, type ParsedIp, parseIp } from './address-ranges.js';
export { type CustomHostOptions, MAX_CUSTOM_HOST_LENGTH, parseCustomHost } from './host-url.js';
export { createPinnedAgent, type PinnedAgentOptions, pinnedLookup } from './pinned-agent.js';
export {
  type LookupFn,
  normaliseAllowlist,
  type ResolvedAddress,
  type ResolveOptions,
  resolveCustomHost,
  resolveSafeTarget,
  type SafeTarget,
  systemLookup,
} from './resolve.js';
export { validateHostnameLabel } from './validate-label.js';
