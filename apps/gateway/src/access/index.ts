// Public surface of control-plane access: who calls (API key or JWT, from the snapshot) and what the
// snapshot lets them reach (managed providers, virtual keys, saved configs and guardrails, the limit
// subject of a request).

export type {
  AccessRoute,
  LeafResolver,
  RequestAccess,
  TargetLimitScope,
  TargetOf,
} from './access-types.js';
export { type Authenticate, createAuthenticate, hashApiKey } from './authenticate.js';
export { type CredentialRoute, credentialRoute } from './credential-route.js';
export { CredentialStore, type ProviderCredentials } from './credentials.js';
export { type EventIdentity, eventIdentity, eventProviderRef, managedRef } from './event-identity.js';
export { type Identity, mergedMetadata } from './identity.js';
export { limitSubject } from './limit-subject.js';
export {
  assertDeploymentAllowed,
  assertModelAllowed,
  assertNamedModelAllowed,
  batchCreation,
  cloudFor,
  deploymentModel,
  type ManagedRef,
  type ManagedRequest,
  type ManagedTarget,
  modelCalled,
  needsModel,
  resolveManaged,
  servedModel,
} from './managed-provider.js';
export {
  type AccessDeps,
  type AccessResolver,
  accessFromConfig,
  createRequestAccess,
} from './request-access.js';
export { type SavedConfig, SavedConfigs } from './saved-config.js';
export { resolveGuardrailRefs, savedGuardrailIds } from './saved-guardrails.js';
export {
  configRequestView,
  type TargetPolicyView,
  targetLimitScope,
  targetPolicyView,
} from './target-limits.js';
