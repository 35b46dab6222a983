// Vertex AI (cloud B): `https://<region>-aiplatform.googleapis.com/v1/projects/<project>/locations/<region>/...`
// with a Google access token as bearer. Three ways in, first match wins:
//   1. a native path (`/projects/...`, `/v1/projects/...`, `/v1beta1/projects/...`) goes as it is;
//   2. with a request-type header, `<model>:<request-type>` where the model is the `model` body field
//      (spec 4.3: the full resource name), e.g. `publishers/google/models/gemini-1.5-pro`;
//   3. OpenAI-style `/chat/completions` and `/embeddings` go to `.../endpoints/openapi/...`, and any
//      other path is taken relative to `/v1/projects/<project>/locations/<region>`.
import { validateHostnameLabel } from '@aigw/ssrf';
import { gatewayError } from '../errors.js';
import { CLOUD_HEADER } from './cloud-headers.js';
import type { ProviderDefinition, ProviderRequest } from './types.js';
import { bearer, customBase, joinUrl } from './upstream-url.js';

const OPENAPI_PATHS = ['/chat/completions', '/embeddings'];
const NATIVE_PATH = /^\/(?:(v1|v1beta1)\/)?projects\/([^/]+)\/locations\/([^/]+)\//;
const REQUEST_TYPE = /^[A-Za-z][A-Za-z0-9]{0,63}$/;
/** A DNS label: project ids, project numbers, locations and publishers all fit it. */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** Model and endpoint ids: `gemini-1.5-pro-002`, `claude-3-5-sonnet@20240620`, `1234567890`. */
const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$/;
const FULL_NAME = /^projects\/([^/]+)\/locations\/([^/]+)\/(.+)$/;

interface Location {
  readonly project: string;
  readonly region: string;
}

function hostFor(region: string): string {
  return region === 'global'
    ? 'https://aiplatform.googleapis.com'
    : `https://${region}-aiplatform.googleapis.com`;
}

function badModel(model: string): Error {
  return gatewayError(
    'bad_request',
    `model ${JSON.stringify(model)} is not a Vertex model name (publishers/<publisher>/models/<model>, projects/<project>/locations/<region>/publishers/..., or endpoints/<id>)`,
    { param: 'model' },
  );
}

/** The project and region headers, each validated when present (even when the path names a location). */
function headerLocation(request: ProviderRequest): Partial<Location> {
  const vertex = request.cloud.vertex;
  return {
    ...(vertex?.projectId !== undefined && {
      project: validateHostnameLabel(CLOUD_HEADER.vertexProjectId, vertex.projectId),
    }),
    ...(vertex?.region !== undefined && {
      region: validateHostnameLabel(CLOUD_HEADER.vertexRegion, vertex.region),
    }),
  };
}

function requireLocation(location: Partial<Location>): Location {
  for (const [key, name] of [
    ['project', CLOUD_HEADER.vertexProjectId],
    ['region', CLOUD_HEADER.vertexRegion],
  ] as const) {
    if (location[key] === undefined) {
      throw gatewayError('invalid_header', `${name} is required for provider vertex-ai`, { param: name });
    }
  }
  return location as Location;
}

function requestType(request: Omit<ProviderRequest, 'json' | 'body'>): string | undefined {
  const value = request.cloud.vertex?.requestType;
  if (value !== undefined && !REQUEST_TYPE.test(value)) {
    const name = CLOUD_HEADER.vertexRequestType;
    throw gatewayError('invalid_header', `${name} must be a method name such as generateContent`, {
      param: name,
    });
  }
  return value;
}

/** `publishers/<p>/models/<m>` or `endpoints/<id>` from what the client wrote after the location. */
function modelResource(model: string, rest: string): string {
  const parts = rest.split('/');
  const [first, second, third, fourth] = parts;
  if (parts.length === 4 && first === 'publishers' && third === 'models') {
    if (LABEL.test(second!) && MODEL_ID.test(fourth!)) return rest;
  } else if (parts.length === 2 && first === 'endpoints' && MODEL_ID.test(second!)) {
    return rest;
  } else if (parts.length === 2 && LABEL.test(first!) && MODEL_ID.test(second!)) {
    return `publishers/${first}/models/${second}`; // `google/gemini-2.0-flash`, `anthropic/claude-...`
  } else if (parts.length === 1 && MODEL_ID.test(first!)) {
    return `publishers/${first!.startsWith('claude') ? 'anthropic' : 'google'}/models/${first}`;
  }
  throw badModel(model);
}

/** The model path below `/v1/`, with the location it names (or the headers' one). */
function modelPath(
  request: ProviderRequest,
  method: string,
  fromHeaders: Partial<Location>,
): { location: Location; path: string } {
  const model = (request.json as { model?: unknown } | undefined)?.model;
  if (typeof model !== 'string' || model === '') {
    throw gatewayError('bad_request', 'the body must name the Vertex model in "model" for a native call', {
      param: 'model',
    });
  }
  const full = FULL_NAME.exec(model);
  if (full) {
    const [, project, region, rest] = full;
    if (!LABEL.test(project!) || !LABEL.test(region!)) throw badModel(model);
    const location = { project: project!, region: region! };
    return {
      location,
      path: `/v1/projects/${project}/locations/${region}/${modelResource(model, rest!)}:${method}`,
    };
  }
  const location = requireLocation(fromHeaders);
  const prefix = `/v1/projects/${location.project}/locations/${location.region}`;
  return { location, path: `${prefix}/${modelResource(model, model)}:${method}` };
}

function nativePath(request: ProviderRequest, match: RegExpExecArray): { location: Location; path: string } {
  const [, version, project, region] = match;
  if (!LABEL.test(project!) || !LABEL.test(region!)) {
    throw gatewayError('bad_request', 'the project and location in the path must be DNS labels', {
      param: 'path',
    });
  }
  return {
    location: { project: project!, region: region! },
    path: version ? request.path : `/v1${request.path}`,
  };
}

function route(request: ProviderRequest): { location: Location; path: string } {
  const native = NATIVE_PATH.exec(request.path);
  const method = requestType(request);
  const fromHeaders = headerLocation(request);
  if (native) return nativePath(request, native);
  if (method !== undefined) return modelPath(request, method, fromHeaders);
  const location = requireLocation(fromHeaders);
  const prefix = `/v1/projects/${location.project}/locations/${location.region}`;
  const path = OPENAPI_PATHS.includes(request.path)
    ? `${prefix}/endpoints/openapi${request.path}`
    : `${prefix}${request.path}`;
  return { location, path };
}

export const vertexAi: ProviderDefinition = {
  id: 'vertex-ai',
  baseUrl: 'https://<region>-aiplatform.googleapis.com/v1',
  needsBody: (request) => requestType(request) !== undefined && !NATIVE_PATH.test(request.path),
  buildTarget(request) {
    const { location, path } = route(request);
    const base = request.customHost ? customBase(request.customHost) : hostFor(location.region);
    return {
      url: joinUrl(base, path, request.search),
      setHeaders: bearer(request.token),
      removeHeaders: [],
    };
  },
};
