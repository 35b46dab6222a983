// The control-plane process: admin REST API on PORT, SnapshotService over gRPC, Postgres, NATS
// (connected in the background: the process starts and serves without it).
import { openDatabase } from '@aigw/db';
import {
  type App,
  Closer,
  connectNatsInBackground,
  createHttpApp,
  createLogger,
  createMetrics,
  type GrpcService,
  type Logger,
  listen,
  startGrpcServer,
} from '@aigw/runtime';
import { parseMasterKey } from '@aigw/secret-box';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { type AlertConsumer, startAlertConsumer } from './alerts/alert-consumer.js';
import { createAlertMailer } from './alerts/alert-mailer.js';
import { createApiKeyExpiryWorker } from './api-keys/api-keys.expiry.js';
import { apiKeyRejectionAuditor } from './audit/api-key-audit.js';
import { createAuthenticator } from './auth/authenticate.js';
import { createJwtVerifier } from './auth/jwt.js';
import { tokenRejectionAuditor } from './auth/token-audit.js';
import { bootstrap } from './bootstrap.js';
import { type ControlPlaneConfig, secretEnvironment } from './config.js';
import { sealLegacyConfigHeaders } from './configs/configs.legacy-headers.js';
import { migrations } from './db/migrations/index.js';
import { type ControlDatabase, SCHEMA } from './db/schema.js';
import { sealLegacyHeaders } from './guardrails/guardrails.legacy-headers.js';
import { adminApi } from './http/admin-api.js';
import { defaultConsoleDir, mountConsole } from './http/console.js';
import { createLoggerClient } from './http/logger-client.js';
import { API_VERSION } from './http/openapi.js';
import { createMcpSyncScheduler } from './mcp-integrations/mcp-sync-scheduler.js';
import { syncPlatformPricing } from './model-pricing/model-pricing.sync.js';
import { createOutboxRelay, ensureControlPlaneStreams, type OutboxRelay } from './outbox/outbox.js';
import { routes } from './routes.js';
import { scimApi } from './scim/scim-api.js';
import { createSecretRefreshWorker } from './secret-references/secret-refresh.worker.js';
import { snapshotReaders } from './snapshot/snapshot.readers.js';
import { SnapshotRepository } from './snapshot/snapshot.repository.js';
import { snapshotService } from './snapshot/snapshot.service.js';

export interface ControlPlaneApp extends App {
  readonly ports: { readonly http: number; readonly grpc: number };
}

export function createApp(
  config: ControlPlaneConfig,
  /** `secretEnv`: the variables `env` secret references read (default: this process's AIGW_SECRET_*). */
  options: { log?: Logger; secretEnv?: ReadonlyMap<string, string> } = {},
): ControlPlaneApp {
  const log =
    options.log ??
    createLogger({ app: 'control-plane', level: config.LOG_LEVEL, instanceId: config.INSTANCE_ID });
  const metrics = createMetrics('control-plane');
  const closer = new Closer(log);
  let ports: ControlPlaneApp['ports'] | undefined;

  return {
    get ports() {
      if (!ports) throw new Error('control plane not started');
      return ports;
    },
    async start() {
      const database = await openDatabase<ControlDatabase>({
        url: config.DATABASE_URL,
        schema: SCHEMA,
        applicationName: 'control-plane',
        maxConnections: config.DATABASE_POOL_MAX,
        ...(config.MIGRATE_ON_START ? { migrations } : {}),
        onMigrated: (applied) => log.info({ applied }, 'migrations applied'),
      });
      closer.add('postgres', () => database.close());
      if (config.MASTER_KEY === undefined) {
        log.warn(
          'MASTER_KEY is not set: provider credentials cannot be stored (integrations and virtual keys with keys answer 500)',
        );
      }
      const created = await bootstrap(database.db, config);
      if (created) {
        log.info(
          { organisationId: created.organisationId, apiKeyId: created.apiKeyId },
          'bootstrapped the first organisation',
        );
        if (created.generatedKey) {
          // Printed once, outside the structured log, so log pipelines never index it.
          process.stdout.write(
            `\nFirst admin API key (shown once; set BOOTSTRAP_ADMIN_KEY to choose it):\n  ${created.generatedKey}\n\n`,
          );
        }
      }
      log.info(await syncPlatformPricing(database.db), 'platform model prices applied');

      const expiry = createApiKeyExpiryWorker({
        db: database.db,
        log,
        intervalMs: config.API_KEY_EXPIRY_SWEEP_MS,
        auditEnabled: config.AUDIT_LOGS_ENABLED,
      });
      expiry.start();
      closer.add('api key expiry', () => expiry.stop());
      const masterKey = config.MASTER_KEY === undefined ? null : parseMasterKey(config.MASTER_KEY);
      // Migrations 0018 and 0019 cannot see MASTER_KEY: rows stored before them are sealed here
      // (docs/secrets.md).
      await sealLegacyHeaders(database.db, masterKey, log);
      await sealLegacyConfigHeaders(database.db, masterKey, log);
      const secretManagers = {
        env: options.secretEnv ?? secretEnvironment(),
        timeoutMs: config.SECRET_MANAGER_TIMEOUT_MS,
      };
      const secretRefresh = createSecretRefreshWorker({
        db: database.db,
        log,
        intervalMs: config.SECRET_REFRESH_SWEEP_MS,
        auditEnabled: config.AUDIT_LOGS_ENABLED,
        masterKey,
        ...secretManagers,
      });
      secretRefresh.start();
      closer.add('secret refresh', () => secretRefresh.stop());

      // Alerts (spec part 6): stored from the gateways' stream, listed by the API, e-mailed if SMTP is set.
      const mailer = config.SMTP_URL
        ? createAlertMailer({
            db: database.db,
            log,
            smtpUrl: config.SMTP_URL,
            from: config.SMTP_FROM,
            timeoutMs: config.SMTP_TIMEOUT_MS,
            retryBaseMs: config.SMTP_RETRY_BASE_MS,
            retryMaxMs: config.SMTP_RETRY_MAX_MS,
            maxAttempts: config.SMTP_MAX_ATTEMPTS,
            pollMs: config.SMTP_POLL_MS,
          })
        : null;
      if (mailer) {
        mailer.start();
        closer.add('alert mailer', () => mailer.stop());
        log.info({ smtpHost: new URL(config.SMTP_URL ?? '').hostname }, 'alert e-mail is on');
      } else {
        log.warn(
          'SMTP_URL is not set: alert e-mail is off (alerts are still stored and listed at /v1/alerts)',
        );
      }
      // NATS carries the outbox's changes out and the gateways' alerts in; the admin API and the
      // SnapshotService serve without it. It is connected (and its streams, relay and consumer set
      // up) in the background: a replica (re)started during a NATS outage serves, and changes wait
      // in the outbox until the relay can publish them.
      let relay: OutboxRelay | undefined;
      let alertConsumer: AlertConsumer | undefined;
      const nats = connectNatsInBackground({
        url: config.NATS_URL,
        name: `control-plane@${config.INSTANCE_ID ?? process.pid}`,
        log,
        setUp: async ({ nc, onStop }) => {
          const jsm = await jetstreamManager(nc);
          await ensureControlPlaneStreams(jsm, config.NATS_STREAM_REPLICAS, config.NATS_NAMESPACE);
          if (!relay) {
            const started = createOutboxRelay({
              db: database.db,
              databaseUrl: config.DATABASE_URL,
              js: jetstream(nc),
              log,
              pollMs: config.OUTBOX_POLL_MS,
              namespace: config.NATS_NAMESPACE,
            });
            onStop('outbox relay', () => started.stop());
            await started.start();
            relay = started;
          }
          if (!alertConsumer) {
            const consumer = await startAlertConsumer({
              db: database.db,
              js: jetstream(nc),
              jsm,
              namespace: config.NATS_NAMESPACE,
              replicas: config.NATS_STREAM_REPLICAS,
              emailState: mailer ? 'pending' : 'off',
              onStored: () => mailer?.wake(),
              log,
            });
            onStop('alert consumer', () => consumer.stop());
            alertConsumer = consumer;
          }
        },
      });
      closer.add('nats', () => nats.stop());
      // With NATS up this is the start it always was (streams, relay and consumer in place); without
      // it, one refused attempt.
      await nats.firstAttempt;
      const mcpSync = createMcpSyncScheduler({
        db: database.db,
        masterKey,
        log,
        intervalMs: config.MCP_SYNC_INTERVAL_MS,
      });
      mcpSync.start();
      closer.add('mcp sync', () => mcpSync.stop());

      // The settings guarantee a token unless SNAPSHOT_SERVICE_AUTH turned the check off in words.
      const snapshotToken = config.SNAPSHOT_SERVICE_TOKEN ?? null;
      if (snapshotToken === null) {
        log.warn(
          { host: config.GRPC_HOST, port: config.GRPC_PORT },
          'SNAPSHOT_SERVICE_AUTH is disabled: anyone who reaches the SnapshotService reads every key hash and sealed credential',
        );
      }
      const services: GrpcService[] = [
        snapshotService({
          repository: new SnapshotRepository(database.db, snapshotReaders),
          log,
          token: snapshotToken,
        }),
      ];
      const grpc = await startGrpcServer(services, config.GRPC_PORT, config.GRPC_HOST);
      closer.add('grpc', () => grpc.close(config.SHUTDOWN_TIMEOUT_MS));

      const logsService = config.LOGGER_GRPC_URL
        ? createLoggerClient({
            url: config.LOGGER_GRPC_URL,
            timeoutMs: config.LOGGER_TIMEOUT_MS,
            usageTimeoutMs: config.LOGGER_USAGE_TIMEOUT_MS,
            log,
            ...(config.LOGGER_SERVICE_TOKEN ? { token: config.LOGGER_SERVICE_TOKEN } : {}),
          })
        : null;
      if (logsService) closer.add('logs service client', () => logsService.close());
      else log.warn('LOGGER_GRPC_URL is not set: /logs, /analytics, /audit-logs and /feedback answer 503');
      const jwt = createJwtVerifier(config);
      const authenticate = createAuthenticator({
        db: database.db,
        jwt,
        organisationClaim: config.JWT_CLAIM_ORGANISATION,
        onTokenRejected: tokenRejectionAuditor({
          db: database.db,
          log,
          enabled: config.AUDIT_LOGS_ENABLED,
        }),
        onApiKeyRejected: apiKeyRejectionAuditor({
          db: database.db,
          log,
          enabled: config.AUDIT_LOGS_ENABLED,
        }),
      });

      const mountApi = adminApi({
        db: database.db,
        authenticate,
        routes,
        apiAccessEnabled: config.API_ACCESS_ENABLED,
        auditEnabled: config.AUDIT_LOGS_ENABLED,
        log,
        version: API_VERSION,
        masterKey,
        logsService,
        secretManagers,
      });
      const app = createHttpApp({
        log,
        metrics,
        accessLog: true,
        trustProxy: config.TRUST_PROXY,
        routes: (express) => {
          mountApi(express);
          // SCIM_ENABLED=OFF: nothing is mounted, so /scim/v2 answers 404 as any unknown path does.
          if (config.SCIM_ENABLED)
            scimApi({ db: database.db, authenticate, auditEnabled: config.AUDIT_LOGS_ENABLED, log })(express);
          if (config.CONSOLE_ENABLED)
            mountConsole(express, { dir: config.CONSOLE_DIR ?? defaultConsoleDir(), log });
        },
        health: {
          // Postgres gates readiness; NATS does not: changes wait in the outbox while it is away, and
          // pulling every replica out of the Service would turn a NATS outage into an admin API outage.
          checks: { postgres: () => database.ping() },
          degradable: { nats: nats.readiness },
          draining: () => closer.closed,
        },
      });
      const http = await listen(app, config.PORT, config.HOST, {
        maxHeaderSize: config.MAX_HEADER_BYTES,
        headersTimeout: config.HEADERS_TIMEOUT_MS,
        requestTimeout: config.REQUEST_BODY_TIMEOUT_MS,
      });
      closer.add('http', () => http.close(config.SHUTDOWN_TIMEOUT_MS));
      ports = { http: http.port, grpc: grpc.port };
      log.info(
        { port: http.port, host: config.HOST, grpcPort: grpc.port, grpcHost: config.GRPC_HOST },
        'control plane listening',
      );
    },
    async stop() {
      await closer.closeAll();
      log.info('control plane stopped');
    },
  };
}
