// A body translator whose output is also handed to a sink: the request event captures (and reads
// usage from) what the client received, in the client's shape, not the provider's bytes.
import type { ChunkSink } from '../upstream/capture.js';
import type { BodyTranslator } from './body-translator.js';

export function teeTo(translator: BodyTranslator, sink: ChunkSink): BodyTranslator {
  const pass = (parts: readonly Buffer[]) => {
    for (const part of parts) sink.push(part);
    return parts;
  };
  return {
    contentType: translator.contentType,
    ...(translator.whole ? { whole: true } : {}),
    push: (chunk) => pass(translator.push(chunk)),
    end: () => pass(translator.end()),
    status: () => translator.status?.(),
  };
}
