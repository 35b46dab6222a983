// The media units a finished image or audio call is charged (images, speech characters, audio
// seconds; media-units.ts reads them), and the model they are priced as: budgets' settle (the
// request's, pipeline/settle.ts through pipeline/media-charge.ts, and a config target's,
// routing/target-admissions.ts) and the request event's cost take both from here, so they agree.
import type { MediaUnits } from '@aigw/pricing';
import { audioSeconds } from './audio-duration.js';
import { formFile, formRequest, measuredMediaUnits, mediaEndpoint, mediaModel } from './index.js';
import { jsonOrUndefined } from './json.js';
import { requestModel } from './request-model.js';

/** What a successful image or audio call is charged . */
export interface MediaCharge {
  readonly units: MediaUnits;
  /** The model it is priced as: image and audio answers do not name one. */
  readonly model: string;
  /** The model the request named ('' when none; `model` may then be a default): the event's requested model. */
  readonly named: string;
  /**
   * The units were measured by the gateway, not the provider (a transcription's seconds read from
   * the uploaded file): the event's `tokens.estimated` says so.
   */
  readonly estimated?: boolean;
}

/** An answer as settle reads it: its content type and the body the provider sent, when whole. */
export type MediaAnswer = () => {
  readonly contentType: string | undefined;
  readonly body: Buffer | undefined;
};

/** One upstream call as a media charge reads it (the request's, or a config target's). */
export interface MediaCall {
  /** Below `/v1`. */
  readonly path: string;
  readonly status: number;
  /** The call failed (an error, whatever the status). */
  readonly failed: boolean;
  /** The parsed JSON body, when read. */
  readonly json: unknown;
  readonly contentType: string | undefined;
  /** The first bytes of the body (a form's fields), when the body streamed unread. */
  readonly head: () => Buffer | undefined;
  /** The whole body, when held (the audio of a transcription is in it). */
  readonly upload: () => Buffer | undefined;
  /** The model the request names ('' when none, or not read). */
  readonly model: string;
  readonly answer: MediaAnswer;
}

/**
 * Units of a call that succeeded (2xx, no error) on a media path; undefined otherwise (a refused or
 * failed call made nothing and is not charged). The answer is read only on a media path. A
 * promise only for a transcription whose answer reports no seconds and whose upload is held: its
 * audio's duration is read from the file, and the charge is marked estimated.
 */
export function mediaChargeOf(call: MediaCall): MediaCharge | Promise<MediaCharge | undefined> | undefined {
  const { path, status } = call;
  const endpoint = mediaEndpoint(path);
  if (status < 200 || status >= 300 || call.failed || !endpoint) return undefined;
  const { contentType, body } = call.answer();
  // A multipart upload (image edits and variations, transcriptions) streams through unread: its
  // model, n, size and quality are form fields of the whole upload when the gateway kept it (a
  // transcription's; the official OpenAI Node SDK sends `model` after the file), else of the
  // captured head of the request.
  const asked = call.json ?? formRequest(call.contentType, call.upload() ?? call.head());
  const units = measuredMediaUnits(
    path,
    asked,
    contentType?.includes('json') ? jsonOrUndefined(body) : undefined,
  );
  // The form read above names the model of an upload; requestModel reads it from there first. An
  // image request naming none is priced as the provider's default model.
  const named = call.model || requestModel(path, call.contentType, undefined, asked);
  const model = mediaModel(path, named, asked);
  if (units || endpoint !== 'transcription') return units && { units, model, named };
  // No seconds in the answer (`text`, `srt`, `vtt`, or `json` without usage): the file's own.
  const file = formFile(call.contentType, call.upload());
  if (!file) return undefined;
  return audioSeconds(file).then((seconds) =>
    seconds === undefined ? undefined : { units: { audioSeconds: seconds }, model, named, estimated: true },
  );
}
