// Simulated external secret managers (Vault KV v2, AWS Secrets Manager) for secret reference tests.
export { type FakeSecretManagers, startFakeSecretManagers } from './fake-secret-managers.js';
