// Which apps the stack runs, on which ports, with which environment.
export type AppName = 'control-plane' | 'logger' | 'gateway';

export interface StackPorts {
  readonly gateway: number;
  readonly controlPlane: number;
  readonly controlPlaneGrpc: number;
  readonly logger: number;
  readonly loggerGrpc: number;
}

/** ARCHITECTURE part 6: the documented default ports. */
export const DEFAULT_PORTS: StackPorts = {
  gateway: 8787,
  controlPlane: 8788,
  controlPlaneGrpc: 50051,
  logger: 8789,
  loggerGrpc: 50052,
};

export interface ServiceUrls {
  readonly databaseUrl: string;
  readonly redisUrl: string;
  readonly natsUrl: string;
}

export interface AppSpec {
  readonly name: AppName;
  readonly httpPort: number;
  readonly env: Readonly<Record<string, string>>;
}

/** Start order matters: the control plane first (gateways sync from it), the gateway last. */
export function appSpecs(
  ports: StackPorts,
  urls: ServiceUrls,
  secrets: { readonly masterKey: string; readonly adminKey: string },
): AppSpec[] {
  const { masterKey, adminKey } = secrets;
  return [
    {
      name: 'control-plane',
      httpPort: ports.controlPlane,
      env: {
        PORT: String(ports.controlPlane),
        GRPC_PORT: String(ports.controlPlaneGrpc),
        DATABASE_URL: urls.databaseUrl,
        NATS_URL: urls.natsUrl,
        MASTER_KEY: masterKey,
        BOOTSTRAP_ADMIN_KEY: adminKey,
        LOGGER_GRPC_URL: `127.0.0.1:${ports.loggerGrpc}`,
      },
    },
    {
      name: 'logger',
      httpPort: ports.logger,
      env: {
        PORT: String(ports.logger),
        GRPC_PORT: String(ports.loggerGrpc),
        DATABASE_URL: urls.databaseUrl,
        NATS_URL: urls.natsUrl,
      },
    },
    {
      name: 'gateway',
      httpPort: ports.gateway,
      env: {
        PORT: String(ports.gateway),
        REDIS_URL: urls.redisUrl,
        NATS_URL: urls.natsUrl,
        CONTROL_PLANE_GRPC_URL: `127.0.0.1:${ports.controlPlaneGrpc}`,
        MASTER_KEY: masterKey,
      },
    },
  ];
}
