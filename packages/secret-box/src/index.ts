// AES-256-GCM envelopes for provider credentials and webhook headers (control plane seals, gateway opens),
// and the per-version cache of what an app opened from them.
export { OpenedByVersion } from './opened-by-version.js';
export {
  configHeadersAad,
  credentialsAad,
  ENVELOPE_VERSION,
  IV_BYTES,
  KEY_BYTES,
  openSecret,
  parseMasterKey,
  SecretBoxError,
  sealSecret,
  TAG_BYTES,
  webhookHeadersAad,
} from './secret-box.js';
