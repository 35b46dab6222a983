// Public types of the normalised gateway config: the node tree, strategies, effective settings, issues.
import type { ConfigIssue } from './config-issue.js';
import type { CacheSettings, Guardrail, RetrySettings } from './settings.schema.js';

export { CONFIG_ISSUE_CODES, type ConfigIssue, type ConfigIssueCode } from './config-issue.js';

export type ConfigResult =
  | { readonly ok: true; readonly config: NormalisedConfig }
  | { readonly ok: false; readonly errors: readonly ConfigIssue[] };

/** A scalar a condition compares against. */
export type QueryValue = string | number | boolean | null;

/** Operators on one field; several operators on one field must all hold. */
export interface FieldCondition {
  readonly $eq?: QueryValue;
  readonly $ne?: QueryValue;
  readonly $gt?: number | string;
  readonly $gte?: number | string;
  readonly $lt?: number | string;
  readonly $lte?: number | string;
  readonly $in?: readonly QueryValue[];
  readonly $nin?: readonly QueryValue[];
  readonly $regex?: string;
}

export type QueryField = `metadata.${string}` | `params.${string}`;

/**
 * A conditional-routing query. Field keys read `metadata.<key>` or `params.<dotted path>`; every
 * entry must hold. In a normalised config a bare value has become `{ $eq: value }`.
 */
export interface ConditionQuery {
  readonly $and?: readonly ConditionQuery[];
  readonly $or?: readonly ConditionQuery[];
  readonly [field: QueryField]: FieldCondition | QueryValue;
}

/** What a conditional query is evaluated against. */
export interface ConditionContext {
  /** Request metadata (`x-service-metadata`); values are usually strings. */
  readonly metadata: Readonly<Record<string, unknown>>;
  /** The request body's JSON object. */
  readonly params: Readonly<Record<string, unknown>>;
}

/** A target named in a config (`then`, `default`): `name` as written, `target` the path it resolved to. */
export interface TargetRef {
  readonly name: string;
  readonly target: string;
}

/** A conditional route; its `name` is the condition's `then`. */
export interface ConditionalRoute extends TargetRef {
  readonly query: ConditionQuery;
}

export type Strategy =
  | { readonly mode: 'single' }
  /** Without `on_status_codes`, any non-2xx answer moves on to the next target. */
  | { readonly mode: 'fallback'; readonly on_status_codes?: readonly number[] }
  | { readonly mode: 'loadbalance' }
  | {
      readonly mode: 'conditional';
      readonly conditions: readonly ConditionalRoute[];
      readonly default?: TargetRef;
    };

export type StrategyMode = Strategy['mode'];

/** Provider-specific options (cloud A = Azure, B = Vertex, C = Bedrock, spec 5.2 and 4.5). */
export interface ProviderOptions {
  readonly azure_resource_name?: string;
  readonly azure_deployment_id?: string;
  readonly azure_api_version?: string;
  readonly azure_model_name?: string;
  readonly azure_auth_mode?: 'default' | 'entra' | 'managed';
  readonly azure_entra_tenant_id?: string;
  readonly azure_entra_client_id?: string;
  readonly azure_entra_client_secret?: string;
  readonly azure_entra_scope?: string;
  readonly azure_managed_client_id?: string;
  readonly vertex_project_id?: string;
  readonly vertex_region?: string;
  readonly vertex_service_account_json?: Readonly<Record<string, string>>;
  readonly aws_access_key_id?: string;
  readonly aws_secret_access_key?: string;
  readonly aws_session_token?: string;
  readonly aws_region?: string;
  /** Comma-separated beta names, sent upstream as `anthropic-beta`. */
  readonly anthropic_beta?: string;
  readonly anthropic_version?: string;
  readonly openai_project?: string;
  readonly openai_organization?: string;
}

/** The settings in force at a node: its own, else inherited from the nearest ancestor that sets them. */
export interface EffectiveSettings extends ProviderOptions {
  readonly provider?: string;
  readonly api_key?: string;
  readonly virtual_key?: string;
  readonly custom_host?: string;
  /** Shallow merge down the tree; a child's keys win. */
  readonly override_params?: Readonly<Record<string, unknown>>;
  readonly forward_headers?: readonly string[];
  readonly request_timeout?: number;
  readonly retry?: RetrySettings;
  readonly cache?: CacheSettings;
  readonly input_guardrails?: readonly Guardrail[];
  readonly output_guardrails?: readonly Guardrail[];
}

export interface ConfigNode {
  /** JSON path: `config`, `config.targets[0]`, `config.targets[1].targets[0]`. */
  readonly path: string;
  /** Targets only: unique among siblings, used by conditional routing. */
  readonly name?: string;
  /** Share of traffic under a loadbalance parent (default 1); 1 elsewhere. */
  readonly weight: number;
  /** `null` for a leaf (a callable target). */
  readonly strategy: Strategy | null;
  readonly targets: readonly ConfigNode[];
  readonly settings: EffectiveSettings;
}

/** A validated config is its root node (path `config`), deep-frozen. */
export type NormalisedConfig = ConfigNode;
