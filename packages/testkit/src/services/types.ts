// The shape every service launcher returns, whichever way the service was obtained.
export type ServiceName = 'postgres' | 'redis' | 'nats';

/** How a service was obtained: a URL from the environment, a local binary, or a container. */
export type ServiceKind = 'env' | 'local' | 'container';

export interface ServiceHandle {
  readonly name: ServiceName;
  readonly kind: ServiceKind;
  /** Connection URL: `postgres://...`, `redis://...` or `nats://...`. */
  readonly url: string;
  /** Milliseconds from "start" to "accepting connections" (0 for `env`). */
  readonly startMs: number;
  /** Server process id for `local` services. */
  readonly pid?: number;
  /** Stops the server and removes its temporary data; a no-op for `env`. Safe to call twice. */
  stop(): Promise<void>;
}

/** A server process this package started (and will stop). */
export type LocalServiceHandle = ServiceHandle & { readonly kind: 'local'; readonly pid: number };
