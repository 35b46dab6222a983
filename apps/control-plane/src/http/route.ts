// One admin route: its schemas (which validate requests and generate OpenAPI), who may call it, and
// what it audits. `mountRoutes` turns definitions into express handlers.
import type { Actor, Entity } from '@aigw/proto';
import type { Logger } from '@aigw/runtime';
import type { Request, Response, Router } from 'express';
import type { Kysely } from 'kysely';
import { type ZodType, z } from 'zod';
import { forbidden, invalid } from '../api-errors.js';
import { buildAuditEvent } from '../audit/audit-event.js';
import type { Authenticate } from '../auth/authenticate.js';
import { actorOf, type Principal, type Role, roleAtLeast, SYSTEM_ACTOR } from '../auth/principal.js';
import type { Scope } from '../auth/scopes.js';
import { readInOneSnapshot } from '../db/page-read.js';
import type { ControlDatabase } from '../db/schema.js';
import { recordAudit, recordChange } from '../outbox/outbox.js';
import type { ManagerDeps, SecretDeps } from '../secrets/secret-managers.js';
import {
  assertIfMatch,
  type EntityVersioning,
  etagOf,
  IF_MATCH_PARAM,
  type IfMatch,
  parseIfMatch,
  rowVersion,
  type VersionedTable,
} from './conditional.js';
import type { LoggerClient } from './logger-client.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface MutationTx {
  /** The open transaction: entity writes first, then `change()`, so outbox ids follow commit order. */
  readonly db: Kysely<ControlDatabase>;
  /** Records the new state (or tombstone) of an entity gateways need, in this transaction. */
  change(entity: Entity): Promise<void>;
}

export interface MutationTarget {
  readonly resourceId: string | null;
  readonly workspaceId: string | null;
  /** Overrides the route's audit organisation (creating an organisation-less object never happens). */
  readonly organisationId?: string;
  /** Overrides the actor of the change and audit (public routes: the actor the credential proves). */
  readonly actor?: Actor;
}

export interface RouteContext<P, Q, B> {
  readonly params: P;
  readonly query: Q;
  readonly body: B;
  readonly principal: Principal;
  readonly db: Kysely<ControlDatabase>;
  readonly req: Request;
  readonly log: Logger;
  /** MASTER_KEY (32 bytes) that seals provider credentials; null when the operator set none. */
  readonly masterKey: Buffer | null;
  /** The logger's LogsService; null when LOGGER_GRPC_URL is unset. */
  readonly logsService: LoggerClient | null;
  /** Reading secret references (secret-references/): MASTER_KEY, the AIGW_SECRET_* variables, timeouts. */
  readonly secrets: SecretDeps & { readonly auditEnabled: boolean };
  /** Runs `fn` in one transaction and audits it there (same commit as the change). */
  mutate<T>(target: MutationTarget, fn: (tx: MutationTx) => Promise<T>): Promise<T>;
  /**
   * Names the target a refusal of this request is audited under, as soon as it is known (a public
   * route learns its organisation from the credential in its body). `mutate` sets it too.
   */
  auditAs(target: MutationTarget): void;
}

export interface RouteDefinition<
  P extends ZodType = ZodType,
  Q extends ZodType = ZodType,
  B extends ZodType = ZodType,
> {
  readonly method: HttpMethod;
  /** Express path below /v1, e.g. `/workspaces/:workspaceId`. */
  readonly path: string;
  readonly tag: string;
  readonly summary: string;
  /** Required scope; null when any authenticated caller may call it (the handler narrows). */
  readonly scope: Scope | null;
  /** `organisation`: only organisation-level callers; `workspace`: workspace-bound callers too. */
  readonly level: 'organisation' | 'workspace';
  /** Lowest role allowed; organisation callers with owner/admin always pass. */
  readonly minRole?: Role;
  /**
   * `none`: a public route whose body carries its own credential (an invite token). No API key or
   * token is read, scope/level/minRole are not checked, `principal` is ANONYMOUS_PRINCIPAL, and
   * the handler passes `organisationId` and `actor` to `mutate`.
   */
  readonly auth?: 'none';
  readonly params?: P;
  readonly query?: Q;
  readonly body?: B;
  readonly response: ZodType;
  readonly status?: number;
  /** Present on mutations: the audit action (`workspaces.create`) and resource type (`workspace`). */
  readonly audit?: { readonly action: string; readonly resourceType: string };
  /**
   * The one versioned entity the route reads or writes (http/conditional.ts): an answer that is the
   * entity carries `ETag: "<row version>"`, and PUT/PATCH/DELETE check If-Match against the row of
   * `MutationTarget.resourceId` under its lock. Every PUT/PATCH/DELETE route names its table or
   * says why it has none (`exempt`: If-Match is then refused); http/conditional.test.ts checks.
   */
  readonly entity?: EntityVersioning;
  readonly handler: (ctx: RouteContext<z.output<P>, z.output<Q>, z.output<B>>) => Promise<unknown>;
}

/** Identity helper that keeps the schema types of a definition. */
export function defineRoute<
  P extends ZodType = ZodType,
  Q extends ZodType = ZodType,
  B extends ZodType = ZodType,
>(route: RouteDefinition<P, Q, B>): RouteDefinition {
  return route as unknown as RouteDefinition;
}

export interface MountDeps {
  readonly db: Kysely<ControlDatabase>;
  readonly authenticate: Authenticate;
  readonly auditEnabled: boolean;
  readonly log: Logger;
  readonly masterKey?: Buffer | null;
  readonly logsService?: LoggerClient | null;
  /** Secret managers: the AIGW_SECRET_* variables and the per-request timeout (defaults: none, 5 s). */
  readonly secretManagers?: ManagerDeps;
}

export function mountRoutes(router: Router, routes: readonly RouteDefinition[], deps: MountDeps): void {
  // The same for every request: built once.
  const secrets: RouteContext<unknown, unknown, unknown>['secrets'] = {
    masterKey: deps.masterKey ?? null,
    env: deps.secretManagers?.env ?? new Map(),
    timeoutMs: deps.secretManagers?.timeoutMs ?? 5_000,
    auditEnabled: deps.auditEnabled,
  };
  for (const route of routes) {
    const table = versionedTable(route);
    router[route.method](route.path, async (req: Request, res: Response) => {
      let principal: Principal | undefined;
      const failure: { target?: MutationTarget } = {};
      const seen: SeenVersion = {};
      try {
        if (route.auth === 'none') principal = ANONYMOUS_PRINCIPAL;
        else {
          principal = await deps.authenticate(req);
          authorize(route, principal);
        }
        const ctx = buildContext(route, req, res, principal, deps, secrets, failure, seen);
        const result =
          table !== undefined && route.method === 'get'
            ? await readWithVersion(route, ctx, table, seen)
            : await route.handler(ctx);
        // A handler that streamed its own response (an export download) has already answered.
        if (!res.headersSent) {
          // The answer is the entity, or says nothing of another one (a policy update answers {}).
          if (seen.version !== undefined && (idOf(result) ?? seen.id) === seen.id) {
            res.setHeader('etag', etagOf(seen.version));
            // The ETag names the stored version, not these bytes (current usage figures change with
            // no new version): If-None-Match is never answered 304 on it.
            delete req.headers['if-none-match'];
          }
          res.status(route.status ?? 200).json(result ?? {});
        }
      } catch (err) {
        if (route.audit && principal && deps.auditEnabled)
          // Authenticated refusals keep the caller's organisation and workspace, as before.
          await auditFailure(
            route,
            req,
            res,
            principal,
            err,
            deps,
            principal === ANONYMOUS_PRINCIPAL ? failure.target : undefined,
          );
        throw err;
      }
    });
  }
}

/** The row version a request read or wrote, and the id of its row: the ETag of an answer that is that entity. */
interface SeenVersion {
  id?: string;
  version?: string | undefined;
}

function versionedTable(route: RouteDefinition): VersionedTable | undefined {
  return route.entity && 'table' in route.entity ? route.entity.table : undefined;
}

function idOf(result: unknown): string | undefined {
  const id = typeof result === 'object' && result !== null ? (result as { id?: unknown }).id : undefined;
  return typeof id === 'string' ? id : undefined;
}

/**
 * A GET of a versioned entity: the handler's reads and the version in one snapshot, so the ETag is
 * never newer than the body (an If-Match with it would otherwise overwrite a change never seen).
 */
function readWithVersion(
  route: RouteDefinition,
  ctx: RouteContext<unknown, unknown, unknown>,
  table: VersionedTable,
  seen: SeenVersion,
): Promise<unknown> {
  return readInOneSnapshot(ctx.db, async (tx) => {
    const result = await route.handler({ ...ctx, db: tx });
    const id = idOf(result);
    if (id !== undefined) {
      seen.id = id;
      seen.version = await rowVersion(tx, table, id, false);
    }
    return result;
  });
}

/**
 * The If-Match of a PUT/PATCH/DELETE (other methods ignore it): 400 AB01 when malformed, or when
 * the route declares that it writes no versioned entity. Routes that declare nothing (SCIM, whose
 * ServiceProviderConfig says ETags are unsupported) ignore it.
 */
function ifMatchOf(route: RouteDefinition, req: Request): IfMatch | undefined {
  if (route.method !== 'put' && route.method !== 'patch' && route.method !== 'delete') return undefined;
  if (route.entity === undefined) return undefined;
  const condition = parseIfMatch(req.get('if-match'));
  if (condition && 'exempt' in route.entity)
    throw invalid(
      `${route.method.toUpperCase()} ${route.path} does not take If-Match: ${route.entity.exempt}`,
      IF_MATCH_PARAM,
    );
  return condition;
}

function authorize(route: RouteDefinition, principal: Principal): void {
  if (route.level === 'organisation' && principal.workspaceId !== null) {
    throw forbidden(
      `${route.method.toUpperCase()} ${route.path} needs an organisation-level caller (admin API key, owner or admin)`,
    );
  }
  if (route.scope !== null && !principal.scopes.has(route.scope)) {
    throw forbidden(`missing scope ${route.scope}`);
  }
  if (route.minRole && !roleAtLeast(principal.role, route.minRole)) {
    throw forbidden(`the ${principal.role} role may not ${route.summary.toLowerCase()}`);
  }
}

function buildContext(
  route: RouteDefinition,
  req: Request,
  res: Response,
  principal: Principal,
  deps: MountDeps,
  secrets: RouteContext<unknown, unknown, unknown>['secrets'],
  failure: { target?: MutationTarget },
  seen: SeenVersion,
): RouteContext<unknown, unknown, unknown> {
  const params = parseInput(route.params, req.params, 'path');
  const query = parseInput(route.query, req.query, 'query');
  const body = parseInput(route.body, req.body, 'body');
  const condition = ifMatchOf(route, req);
  const table = versionedTable(route);
  return {
    params,
    query,
    body,
    principal,
    db: deps.db,
    req,
    log: deps.log,
    masterKey: deps.masterKey ?? null,
    logsService: deps.logsService ?? null,
    secrets,
    auditAs: (target) => {
      failure.target = target;
    },
    mutate: (target, fn) => {
      failure.target = target;
      return deps.db.transaction().execute(async (trx) => {
        const actor = target.actor ?? actorOf(principal);
        const id = target.resourceId;
        // Locked before the handler runs, in the handler's own order (this row first, or after the
        // route's `lockBefore` locks): a concurrent writer with the same If-Match waits here, then
        // reads the version the first one wrote.
        let before: string | undefined;
        if (condition && table && id !== null) {
          if (route.entity && 'lockBefore' in route.entity) await route.entity.lockBefore?.(trx, principal);
          before = await rowVersion(trx, table, id, true);
        }
        const result = await fn({
          db: trx,
          change: async (entity) => void (await recordChange(trx, { entity, actor })),
        });
        // Compared once the handler has run, so its refusals come first (an entity the caller may not
        // see stays 404, its version unsaid); the 409 rolls back every write, outbox rows included.
        if (condition) assertIfMatch(condition, before, resourceName(route));
        if (table && id !== null) {
          seen.id = id;
          seen.version = await rowVersion(trx, table, id, false);
        }
        if (route.audit && deps.auditEnabled) {
          await recordAudit(
            trx,
            buildAuditEvent(req, {
              organisationId: target.organisationId ?? principal.organisationId,
              workspaceId: target.workspaceId,
              actor,
              action: route.audit.action,
              resourceType: route.audit.resourceType,
              resourceId: target.resourceId,
              statusCode: route.status ?? 200,
              traceId: String(res.locals.requestId ?? ''),
            }),
          );
        }
        return result;
      });
    },
  };
}

/** `rate limits policy` for messages, from the audit resource type. */
function resourceName(route: RouteDefinition): string {
  return route.audit?.resourceType.replaceAll('_', ' ') ?? 'entity';
}

function parseInput(schema: ZodType | undefined, value: unknown, where: 'path' | 'query' | 'body'): unknown {
  if (!schema) return undefined;
  if (where === 'body' && value === undefined) value = {};
  const nul = nulPath(value, [where]);
  if (nul) throw invalid(`${nul}: must not contain NUL characters`, nul);
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = [where, ...(issue?.path ?? [])].map(String).join('.');
  throw invalid(`${path}: ${issue?.message ?? 'invalid value'}`, path);
}

/** Postgres text cannot hold U+0000: find one anywhere in the input (keys included) to refuse it as 400. */
function nulPath(value: unknown, path: readonly (string | number)[], depth = 0): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path.join('.') : undefined;
  if (value === null || typeof value !== 'object' || depth > 32) return undefined;
  for (const [key, inner] of Object.entries(value)) {
    if (key.includes('\u0000')) return path.join('.');
    const found = nulPath(inner, [...path, key], depth + 1);
    if (found) return found;
  }
  return undefined;
}

async function auditFailure(
  route: RouteDefinition,
  req: Request,
  res: Response,
  principal: Principal,
  err: unknown,
  deps: MountDeps,
  target: MutationTarget | undefined,
): Promise<void> {
  const status =
    typeof (err as { status?: unknown }).status === 'number' ? (err as { status: number }).status : 500;
  try {
    await recordAudit(
      deps.db,
      // A public route's refusal belongs to the organisation its credential named (`auditAs`), else
      // it is unattributed (organisation ''): recorded all the same, for the platform operator.
      buildAuditEvent(req, {
        organisationId: target?.organisationId ?? principal.organisationId,
        workspaceId: target ? target.workspaceId : principal.workspaceId,
        // The refused caller proved nothing: a public route's refusal keeps the unauthenticated actor.
        actor: principal === ANONYMOUS_PRINCIPAL ? UNAUTHENTICATED_ACTOR : actorOf(principal),
        action: route.audit?.action ?? 'unknown',
        resourceType: route.audit?.resourceType ?? 'unknown',
        resourceId: target?.resourceId ?? firstParam(req),
        statusCode: status,
        traceId: String(res.locals.requestId ?? ''),
      }),
    );
  } catch (auditErr) {
    deps.log.error({ err: auditErr, action: route.audit?.action }, 'failed to audit a refused mutation');
  }
}

function firstParam(req: Request): string | null {
  const value = Object.values(req.params ?? {})[0];
  return typeof value === 'string' ? value : null;
}

export const emptyObject = z.object({}).strict();

/** The caller of a public route (`auth: 'none'`): no organisation, no scopes, nothing it may see. */
export const ANONYMOUS_PRINCIPAL: Principal = Object.freeze({
  via: 'api_key',
  organisationId: '',
  workspaceId: null,
  role: 'member',
  scopes: new Set<string>(),
  userId: null,
  apiKeyId: null,
  keyType: null,
  displayName: 'unauthenticated',
});

const UNAUTHENTICATED_ACTOR: Actor = { ...SYSTEM_ACTOR, displayName: 'unauthenticated' };
