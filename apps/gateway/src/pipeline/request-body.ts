// Stage: read the request body, only when a stage needs it; otherwise it streams to the provider
// untouched. Who needs it (docs/gateway.md, "When the gateway reads a body"): a config (routing,
// retries, cache, guardrails), a provider that signs or reads it (Bedrock, Vertex), a managed
// provider with an allow-list or several deployments, a limit policy on the model, the stream
// usage of OpenAI-style completions (stream-usage.ts), and image and speech requests in
// control-plane mode (priced by what they ask for: formats/media-units.ts).
import {
  assertDeploymentAllowed,
  assertModelAllowed,
  cloudFor,
  deploymentModel,
  modelCalled,
  needsModel,
} from '../access/index.js';
import { gatewayError } from '../errors.js';
import { formRequest, mediaEndpoint } from '../formats/index.js';
import { requestModel } from '../formats/request-model.js';
import type { Limits } from '../limits/index.js';
import { CLOUD_HEADER, readCloudOptions } from '../providers/cloud-headers.js';
import { mayTranslate } from '../translate/translation.js';
import { readBody } from '../upstream/read-body.js';
import type { PlainTarget, RequestContext } from './request-context.js';
import { jsonModel } from './request-event.js';
import { streamsUsageOnRequest, withUsageRequested } from './stream-usage.js';

export interface BodyDeps {
  readonly maxBodyBytes: number;
  readonly limits: Limits | undefined;
}

function isJson(ctx: RequestContext): boolean {
  return ctx.req.headers['content-type']?.includes('json') ?? false;
}

/** Image and speech requests: their JSON says what they cost (transcriptions are multipart uploads). */
function requestPricedMedia(path: string): boolean {
  const endpoint = mediaEndpoint(path);
  return endpoint === 'images' || endpoint === 'speech';
}

/** An image upload (edits, variations): its form fields say what it costs. */
function imageUpload(ctx: RequestContext): boolean {
  return (
    mediaEndpoint(ctx.path) === 'images' &&
    (ctx.req.headers['content-type']?.startsWith('multipart/form-data') ?? false)
  );
}

/**
 * `required`: a stage cannot go on without the JSON (400 when it does not parse); otherwise a body
 * that does not parse is sent as it came and the provider answers it, as without the gateway.
 */
function parse(ctx: RequestContext, body: Buffer, required = true): void {
  ctx.body = body;
  if (body.length === 0 || !isJson(ctx)) return;
  try {
    ctx.json = JSON.parse(body.toString('utf8'));
  } catch {
    if (!required) return;
    throw gatewayError('invalid_json', 'The request body is not valid JSON');
  }
  ctx.facts.modelRequested = jsonModel(ctx.json);
}

/** A config reads the whole body: its targets, retries and override_params each send it again. */
export async function readConfigBody(ctx: RequestContext, deps: BodyDeps): Promise<void> {
  if (Number(ctx.req.headers['content-length'] ?? 0) > deps.maxBodyBytes) {
    throw gatewayError('payload_too_large', `The request body is larger than ${deps.maxBodyBytes} bytes`);
  }
  // A prompt completion's body was rendered by its own stage (prompt-stage.ts).
  parse(ctx, ctx.body ?? (await readBody(ctx.req, deps.maxBodyBytes)));
  ctx.model = requestModel(ctx.path, ctx.req.headers['content-type'], ctx.body, ctx.json);
}

/** A plain target's body: read when needed; sets the model, the allow-list check and the body to send. */
export async function readTargetBody(
  ctx: RequestContext,
  target: PlainTarget,
  deps: BodyDeps,
): Promise<void> {
  const { managed } = target;
  const access = ctx.access;
  const modelNeeded =
    (managed !== undefined && needsModel(managed)) ||
    (access !== undefined &&
      deps.limits?.readsModel(access.snapshot, access.identity.organisation.id) === true);
  // Images and speech are priced by what the JSON asks for (n, size, quality; input's length) and by
  // its model, which the answer does not name: budgets reserve it, settle and the event price it. A
  // body that does not parse still goes to the provider, as without the gateway.
  // An image upload too: its form's n, size and quality are reserved before the call (read whole,
  // bounded by MAX_BODY_BYTES), not only charged after it.
  const mediaPriced = access !== undefined && (isJson(ctx) ? requestPricedMedia(ctx.path) : imageUpload(ctx));
  const usageAsked =
    isJson(ctx) &&
    streamsUsageOnRequest(
      ctx.method,
      ctx.path,
      target.provider.id,
      ctx.search,
      target.base.cloud.azure?.apiVersion,
    );
  const rendered = ctx.body;
  // A request the unified API may translate is read whole: it is rewritten for the provider.
  const translates = mayTranslate(ctx.method, ctx.path, target.provider.id);
  if (
    rendered === undefined &&
    !modelNeeded &&
    !mediaPriced &&
    !usageAsked &&
    !translates &&
    !target.provider.needsBody(target.base)
  ) {
    // Streams through: the model can still be in the path (Bedrock) or be an Azure deployment's,
    // never in an unread body.
    ctx.model =
      (managed && deploymentModel(managed, ctx.path, target.base.cloud)) ||
      requestModel(ctx.path, undefined, undefined, undefined);
    return;
  }
  // Parsed once here: the request event and the usage estimate read the model from it too.
  const body = rendered ?? (await readBody(ctx.req, deps.maxBodyBytes));
  parse(ctx, body, modelNeeded || translates || target.provider.needsBody(target.base));
  // An upload's form (image or audio) is read here once, whole: the model, the admission and the
  // media charge use it (undefined when the body is not multipart).
  if (ctx.json === undefined) ctx.form = formRequest(ctx.req.headers['content-type'], body);
  ctx.model = requestModel(ctx.path, undefined, undefined, ctx.json ?? ctx.form);
  if (managed && needsModel(managed)) {
    assertModelAllowed(
      managed,
      modelCalled(managed, ctx.method, ctx.path, ctx.model, ctx.json ?? ctx.form),
      'model',
    );
    const cloud = cloudFor(managed, readCloudOptions(ctx.req.headers), ctx.model);
    assertDeploymentAllowed(managed, ctx.path, cloud, CLOUD_HEADER.azureDeploymentId);
    target.base = { ...target.base, cloud };
  }
  // Limits count what an Azure deployment serves, not what the body names (the client may pick the
  // deployment: x-service-cloudA-deployment-id, or the AzureOpenAI SDK's path).
  const served = managed && deploymentModel(managed, ctx.path, target.base.cloud);
  if (served) ctx.model = served;
  if (usageAsked && ctx.json !== undefined) {
    const asked = withUsageRequested(ctx.json);
    if (asked) {
      // The log keeps what the client sent, not the body with the usage request added.
      ctx.facts.request.push(body);
      ctx.json = asked;
      ctx.body = Buffer.from(JSON.stringify(asked), 'utf8');
      ctx.usageInjected = true;
    }
  }
}
