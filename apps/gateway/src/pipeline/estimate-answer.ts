// Usage of a model call whose provider reported none (a stream without usage from a provider that
// cannot be asked, a self-hosted server): counted with the model's tokenizer from the request's
// text and the answer's, marked estimated, and priced and charged like reported usage. An
// estimated answer is never free. Off the response path: the answer is complete when this runs.
import {
  estimateUsage,
  estimateUsageFromSizes,
  jsonOrUndefined,
  jsonText,
  requestText,
  streamText,
} from '../formats/index.js';
import { isRetrieval, type ResponseFacts } from '../upstream/usage.js';
import type { RequestContext } from './request-context.js';

/** True when an answer went out whole (2xx), asked a model, was no retrieval, and reported no usage. */
export function needsEstimate(ctx: RequestContext, read: ResponseFacts | undefined): boolean {
  const status = ctx.result?.status ?? 0;
  return (
    read?.usage === undefined &&
    status >= 200 &&
    status < 300 &&
    ctx.model !== '' &&
    !ctx.result?.error &&
    !isRetrieval(ctx.method)
  );
}

export async function estimateAnswer(
  ctx: RequestContext,
  read: ResponseFacts | undefined,
): Promise<ResponseFacts> {
  const { request, response } = ctx.facts;
  const model = read?.model ?? ctx.model;
  const requestJson = ctx.json ?? jsonOrUndefined(request.complete());
  const inputText = requestText(requestJson);
  const body = response.complete();
  const type = ctx.result?.contentType;
  let outputText = '';
  if (body) {
    if (type?.startsWith('text/event-stream')) outputText = streamText(body);
    else if (type?.includes('json')) outputText = jsonText(jsonOrUndefined(body)) ?? '';
  }
  // Neither text could be read (a body larger than the capture, another shape): sizes, still priced.
  const usage =
    inputText === '' && outputText === ''
      ? estimateUsageFromSizes(request.total, response.total)
      : await estimateUsage({ model, inputText, outputText });
  return { usage, model: read?.model };
}
