// Bedrock runtime (cloud C): `https://bedrock-runtime.<region>.amazonaws.com/<path>`, the gateway path
// mapping 1:1 (`/model/<url-encoded model id>/converse`, `/invoke`, `-stream` variants). Requests are
// SigV4-signed (service `bedrock`) with the x-service-cloudC credentials; without them a Bedrock API key
// sent as the bearer token is passed through as `Authorization: Bearer`, as AWS documents for those keys.
import { validateHostnameLabel } from '@aigw/ssrf';
import { gatewayError } from '../errors.js';
import { CLOUD_HEADER } from './cloud-headers.js';
import { signSigV4 } from './sigv4.js';
import type { CloudOptions, ProviderDefinition, ProviderRequest } from './types.js';
import { bearer, chooseBase, joinUrl } from './upstream-url.js';

export const BEDROCK_SIGNING_SERVICE = 'bedrock';
const ACCESS_KEY_ID = /^[A-Za-z0-9]{1,128}$/;
/** The session token goes into a header: visible ASCII only (AWS tokens are base64). */
const SESSION_TOKEN = /^[\x21-\x7e]+$/;
/** Client headers that would contradict the gateway's signature. */
const REMOVED = ['authorization', 'x-amz-date', 'x-amz-security-token', 'x-amz-content-sha256'];

export interface BedrockProviderOptions {
  /** Signing clock (tests pin it; the default is the wall clock). */
  readonly now?: () => Date;
}

function invalid(name: string, message: string): Error {
  return gatewayError('invalid_header', `${name} ${message}`, { param: name });
}

function signs(cloud: CloudOptions): boolean {
  return cloud.bedrock?.accessKeyId !== undefined || cloud.bedrock?.secretAccessKey !== undefined;
}

function credentials(request: ProviderRequest) {
  const { accessKeyId, secretAccessKey, sessionToken } = request.cloud.bedrock ?? {};
  if (accessKeyId === undefined) throw invalid(CLOUD_HEADER.bedrockAccessKeyId, 'is required with a secret');
  if (!ACCESS_KEY_ID.test(accessKeyId)) {
    throw invalid(CLOUD_HEADER.bedrockAccessKeyId, 'must be letters and digits');
  }
  if (secretAccessKey === undefined) {
    throw invalid(CLOUD_HEADER.bedrockSecretAccessKey, 'is required with an access key id');
  }
  if (sessionToken !== undefined && !SESSION_TOKEN.test(sessionToken)) {
    throw invalid(CLOUD_HEADER.bedrockSessionToken, 'must be printable ASCII without spaces');
  }
  return { accessKeyId, secretAccessKey, sessionToken };
}

export function createBedrockProvider(options: BedrockProviderOptions = {}): ProviderDefinition {
  const now = options.now ?? (() => new Date());
  return {
    id: 'bedrock',
    baseUrl: 'https://bedrock-runtime.<region>.amazonaws.com',
    // The signature covers the body hash, so the exact bytes are needed when signing.
    needsBody: (request) => signs(request.cloud),
    async buildTarget(request) {
      const rawRegion = request.cloud.bedrock?.region;
      if (rawRegion === undefined)
        throw invalid(CLOUD_HEADER.bedrockRegion, 'is required for provider bedrock');
      const region = validateHostnameLabel(CLOUD_HEADER.bedrockRegion, rawRegion);
      const url = joinUrl(
        chooseBase(request, `https://bedrock-runtime.${region}.amazonaws.com`),
        request.path,
        request.search,
      );
      if (!signs(request.cloud)) {
        if (request.token === undefined) {
          throw invalid(
            CLOUD_HEADER.bedrockAccessKeyId,
            'is required for provider bedrock (or send a Bedrock API key as the bearer token)',
          );
        }
        return { url, setHeaders: bearer(request.token), removeHeaders: REMOVED };
      }
      const signed = await signSigV4({
        method: request.method,
        path: url.pathname,
        query: url.search,
        headers: { host: url.host },
        body: request.body,
        region,
        service: BEDROCK_SIGNING_SERVICE,
        credentials: credentials(request),
        date: now(),
        contentSha256Header: true,
      });
      // `host` is set explicitly: the signature is only valid when the upstream sees exactly this one.
      return { url, setHeaders: { host: url.host, ...signed.headers }, removeHeaders: REMOVED };
    },
  };
}

export const bedrock = createBedrockProvider();
