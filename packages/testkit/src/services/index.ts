// Public surface of `@aigw/testkit/services`: start and stop real servers, no test framework needed.
export {
  type BinaryLocator,
  type BinaryName,
  createLocator,
  type LocatorOptions,
  locatePostgres,
} from './binaries.js';
export { checkContainerRuntime, type RuntimeCheck, startContainer } from './containers.js';
export { freePort } from './free-port.js';
export { type LocalNatsOptions, startLocalNats } from './nats.js';
export { type LocalPostgresOptions, startLocalPostgres } from './postgres.js';
export { type ReapedProcess, type ReapedSpec, spawnReaped } from './reaper.js';
export { type LocalRedisOptions, startLocalRedis } from './redis.js';
export {
  type ResolvedServices,
  type ResolveOptions,
  resolveServices,
  SERVICE_INFO,
  ServicesUnavailableError,
} from './resolve.js';
export { type RestartableNats, startRestartableNats } from './restartable-nats.js';
export type { LocalServiceHandle, ServiceHandle, ServiceKind, ServiceName } from './types.js';
