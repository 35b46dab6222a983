// Every record kind that may take credentials from secret references, in the order sweeps and
// on-demand resolutions visit them.
import { INTEGRATION_SECRETS, type SecretOwner } from '../integrations/secret-owners.js';
import { VIRTUAL_KEY_SECRETS } from '../providers/virtual-key-secrets.js';

export const SECRET_OWNERS: readonly SecretOwner[] = [INTEGRATION_SECRETS, VIRTUAL_KEY_SECRETS];
