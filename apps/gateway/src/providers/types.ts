// The Provider definition: how a client request addressed to one provider becomes an upstream
// request (base URL, URL building, auth header translation, extra headers, request signing).
// One module per provider implements it; the pass-through pipeline never special-cases a provider.
import type { IncomingHttpHeaders } from 'node:http';

/** Cloud options read from `x-service-cloud*` headers (or, later, a config / integration). */
export interface CloudOptions {
  /** Cloud A (Azure OpenAI): `<resourceName>.openai.azure.com/openai/deployments/<deploymentId>`. */
  readonly azure?: {
    readonly resourceName?: string;
    readonly deploymentId?: string;
    readonly apiVersion?: string;
    readonly modelName?: string;
  };
  /** Cloud B (Vertex AI). */
  readonly vertex?: {
    readonly projectId?: string;
    readonly region?: string;
    /** The request-type header: which Vertex surface is called (see the vertex module). */
    readonly requestType?: string;
  };
  /** Cloud C (Bedrock): SigV4 credentials. */
  readonly bedrock?: {
    readonly accessKeyId?: string;
    readonly secretAccessKey?: string;
    readonly sessionToken?: string;
    readonly region?: string;
  };
  readonly anthropicBeta?: string;
  readonly anthropicVersion?: string;
}

/** What the pipeline knows about the incoming request when it asks a provider for a target. */
export interface ProviderRequest {
  readonly method: string;
  /** Path below the gateway's `/v1`, starting with `/` (e.g. `/chat/completions`). */
  readonly path: string;
  /** Raw query string including `?`, or ''. */
  readonly search: string;
  /** Client headers, lower-case names (already without hop-by-hop and `x-service-*`). */
  readonly headers: IncomingHttpHeaders;
  /** The provider token from `Authorization: Bearer <token>` (undefined when absent). */
  readonly token: string | undefined;
  readonly cloud: CloudOptions;
  /** A validated custom host (base URL incl. path) replacing the provider's own base URL. */
  readonly customHost: URL | undefined;
  /** The parsed JSON body, present only when the provider declared it needs it (`needsBody`). */
  readonly json?: unknown;
  /** The raw body, present only when `needsBody` said so (e.g. to sign it). */
  readonly body?: Buffer;
}

/** The upstream request a provider asks for. */
export interface UpstreamTarget {
  /** Absolute URL of the upstream request (base URL + provider path + query). */
  readonly url: URL;
  /** Headers to set (auth and provider headers); they override client headers of the same name. */
  readonly setHeaders: Readonly<Record<string, string>>;
  /** Client headers to remove before sending (e.g. `authorization` when the provider wants `x-api-key`). */
  readonly removeHeaders: readonly string[];
}

export interface ProviderDefinition {
  /** The `x-service-provider` value (lower-case, e.g. `openai`, `azure-openai`). */
  readonly id: string;
  /** Documented base URL (the default upstream when no custom host is given). */
  readonly baseUrl: string;
  /** Does building the target need the body? (Bedrock signs it; Vertex reads `model` from it.) */
  needsBody(request: Omit<ProviderRequest, 'json' | 'body'>): boolean;
  /**
   * Throws a gateway `invalid_header`/`bad_request` error when required options are missing. A
   * provider that signs with the AWS SDK's signer (Bedrock) answers with a promise: that signer is async.
   */
  buildTarget(request: ProviderRequest): UpstreamTarget | Promise<UpstreamTarget>;
}
