// Every control-plane migration, in order. Forward-only: never edit one that has shipped.
import type { Migrations } from '@aigw/db';
import * as outbox from './0001-outbox.js';
import * as tenancy from './0003-tenancy.js';
import * as inviteExpired from './0005-invite-expired.js';
import * as integrations from './0007-integrations.js';
import * as policies from './0008-policies.js';
import * as configsGuardrails from './0009-configs-guardrails.js';
import * as modelPricing from './0010-model-pricing.js';
import * as feedbackAudit from './0011-feedback-audit.js';
import * as alerts from './0012-alerts.js';
import * as prompts from './0013-prompts.js';
import * as mcp from './0014-mcp.js';
import * as deployments from './0015-deployments.js';
import * as secretReferences from './0016-secret-references.js';
import * as virtualKeySecretMappings from './0017-virtual-key-secret-mappings.js';
import * as guardrailSealedHeaders from './0018-guardrail-sealed-headers.js';
import * as configSealedHeaders from './0019-config-sealed-headers.js';
import * as scim from './0020-scim.js';

export const migrations: Migrations = {
  '0001-outbox': outbox,
  '0003-tenancy': tenancy,
  '0005-invite-expired': inviteExpired,
  '0007-integrations': integrations,
  '0008-policies': policies,
  '0009-configs-guardrails': configsGuardrails,
  '0010-model-pricing': modelPricing,
  '0011-feedback-audit': feedbackAudit,
  '0012-alerts': alerts,
  '0013-prompts': prompts,
  '0014-mcp': mcp,
  '0015-deployments': deployments,
  '0016-secret-references': secretReferences,
  '0017-virtual-key-secret-mappings': virtualKeySecretMappings,
  '0018-guardrail-sealed-headers': guardrailSealedHeaders,
  '0019-config-sealed-headers': configSealedHeaders,
  '0020-scim': scim,
};
