// Route definitions and matching: raw (still encoded) path against a regex with named groups.
import type { AuthKind } from './auth.js';
import type { RouteContext } from './context.js';
import type { ErrorStyle, ProviderError } from './errors.js';
import type { ProviderName } from './types.js';

export interface Route {
  methods: readonly string[];
  /** Matched against the encoded path, so an encoded `/` inside a Bedrock model ARN stays one segment. */
  pattern: RegExp;
  provider: ProviderName;
  style: ErrorStyle;
  auth: AuthKind;
  /** Runs before auth, for checks the provider makes while routing (Azure's api-version). */
  precheck?: (ctx: RouteContext) => ProviderError | undefined;
  handle: (ctx: RouteContext) => Promise<void> | void;
}

export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

export function matchRoute(
  routes: readonly Route[],
  method: string,
  rawPath: string,
): RouteMatch | undefined {
  for (const route of routes) {
    if (!route.methods.includes(method)) continue;
    const m = route.pattern.exec(rawPath);
    if (!m) continue;
    const params: Record<string, string> = {};
    for (const [name, value] of Object.entries(m.groups ?? {})) {
      if (value !== undefined) params[name] = safeDecode(value);
    }
    return { route, params };
  }
  return undefined;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
