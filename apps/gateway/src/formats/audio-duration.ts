// The seconds of an uploaded audio file, read from the file itself (music-metadata: its headers,
// frames or container, without decoding), for a transcription or translation whose answer reports
// none. Estimated: the provider measured nothing. A file that cannot be read is not charged; it is
// counted in `gateway_audio_duration_unread_total` (no content, no name: nothing of the request).
import { parseBuffer } from 'music-metadata';
import { Counter, type Registry } from 'prom-client';

let unread = 0;

/** Files whose duration could not be read since the process started (the metric's count). */
export function unreadAudioFiles(): number {
  return unread;
}

/**
 * Whole seconds of audio in `file` (a started second counts whole, as with reported seconds);
 * undefined, counted, when the file's format or duration cannot be read. Never rejects. Bounded:
 * the file is a held upload (at most MAX_BODY_BYTES), and durations are taken from headers
 * (`duration: false`: no scan of every frame).
 */
export async function audioSeconds(file: Uint8Array): Promise<number | undefined> {
  let seconds: number | undefined;
  try {
    const { format } = await parseBuffer(file, undefined, {
      duration: false,
      skipCovers: true,
      skipPostHeaders: true,
    });
    seconds = format.duration;
  } catch {
    seconds = undefined;
  }
  if (seconds === undefined || !Number.isFinite(seconds) || seconds < 0) {
    unread++;
    return undefined;
  }
  return Math.ceil(seconds);
}

/** `gateway_audio_duration_unread_total` on the app's registry (read from the count when scraped). */
export function audioDurationMetrics(registry: Registry): void {
  let reported = 0;
  new Counter({
    name: 'gateway_audio_duration_unread_total',
    help: 'Transcription uploads whose answer reported no seconds and whose audio duration could not be read (not charged)',
    registers: [registry],
    collect() {
      this.inc(unread - reported);
      reported = unread;
    },
  });
}
