// The express stack every app shares: request ids, metrics, health routes, its own routes, errors.
import express, { type Express } from 'express';
import { errorHandler, notFound } from './errors.js';
import { type HealthOptions, healthRouter } from './health.js';
import { type Logger, requestContext, requestLog } from './logger.js';
import { type AppMetrics, httpMetrics } from './metrics.js';

export interface HttpAppOptions {
  readonly log: Logger;
  readonly metrics: AppMetrics;
  readonly health: Omit<HealthOptions, 'registry'>;
  /** Log one line per request (at info). Off for the gateway's hot path, on for admin APIs. */
  readonly accessLog?: boolean;
  /** Mounts the app's own routes between the shared middleware and the error boundary. */
  readonly routes?: (app: Express) => void;
  /**
   * Proxies trusted to say who the client is (the `trustProxy` setting): `req.ip`, `req.protocol`
   * and `req.host` then come from their X-Forwarded-* headers. Default: none.
   */
  readonly trustProxy?: number | readonly string[] | false;
}

export function createHttpApp(options: HttpAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', options.trustProxy ?? false);
  app.use(requestContext());
  app.use(httpMetrics(options.metrics));
  if (options.accessLog) {
    app.use((req, res, next) => {
      const start = process.hrtime.bigint();
      res.once('finish', () => {
        requestLog(res, options.log).info(
          {
            method: req.method,
            path: req.path,
            status: res.statusCode,
            ms: Number(process.hrtime.bigint() - start) / 1e6,
          },
          'request',
        );
      });
      next();
    });
  }
  app.use(healthRouter({ ...options.health, registry: options.metrics.registry }));
  options.routes?.(app);
  app.use(notFound);
  app.use(errorHandler(options.log));
  return app;
}
