// AES-256-GCM envelopes for provider credentials and webhook headers (control plane seals, gateway opens).
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
