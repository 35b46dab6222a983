// Public surface of @aigw/mock-provider: the server, its types, the SigV4 signer and the helpers tests
// use to compute the mock's deterministic answers.
export { CLI_USAGE, type CliCommand, parseCliArgs } from './cli-options.js';
export { decodeEventMessages, type EventStreamMessage, encodeEventMessage } from './eventstream.js';
export { DEFAULT_KNOBS, KNOB_HEADERS, KnobError, SCENARIO_HEADER } from './knobs.js';
export { MultipartError, parseMultipart } from './multipart.js';
export { defaultDimensions, float32Base64 } from './providers/openai-embeddings.js';
export { BATCH_COUNT, EVENTS_PER_JOB, jobEvents, MOCK_BATCHES } from './providers/openai-lists.js';
export { MOCK_MODELS, MODERATION_CATEGORIES, moderate } from './providers/openai-misc.js';
export { createMockProvider, DEFAULT_AWS_CREDENTIALS } from './server.js';
export { type SignAwsRequestInput, signAwsRequest } from './sigv4.js';
export { type SigV4Options, type SigV4Request, type SigV4Result, verifySigV4 } from './sigv4-verify.js';
export { countTokens, embeddingVector, splitChunks, truncateTokens } from './text.js';
export type {
  AwsCredentials,
  KeyedProvider,
  KnobPatch,
  MockKnobs,
  MockOptions,
  MockProvider,
  MultipartPart,
  ProviderName,
  RecordedRequest,
} from './types.js';
