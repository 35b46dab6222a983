// Every control-plane migration, in order. Forward-only: never edit one that has shipped.
import type { Migrations } from '@aigw/db';
import * as outbox from './0001-outbox.js';
import * as tenancy from './0003-tenancy.js';
import * as inviteExpired from './0005-invite-expired.js';

export const migrations: Migrations = {
  '0001-outbox': outbox,
  '0003-tenancy': tenancy,
  '0005-invite-expired': inviteExpired,
};
