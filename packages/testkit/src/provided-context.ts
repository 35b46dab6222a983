// What the global setup hands to test workers: the URLs of the shared servers of this run.
export interface TestkitContext {
  readonly databaseUrl: string;
  readonly redisUrl: string;
  readonly natsUrl: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    testkit: TestkitContext;
  }
}
