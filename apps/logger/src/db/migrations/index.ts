// Every logger migration, in order. Forward-only: never edit one that has shipped.
import type { Migrations } from '@aigw/db';
import * as deadLetters from './0001-dead-letters.js';
import * as requestLogs from './0002-request-logs.js';
import * as records from './0003-records.js';
import * as exportChunks from './0004-export-chunks.js';
import * as usageLedgerCounterKeys from './0005-usage-ledger-counter-keys.js';
import * as unattributedAudit from './0006-unattributed-audit.js';
import * as feedbackWorkspace from './0007-feedback-workspace.js';
import * as alerts from './0008-alerts.js';
import * as ingestIndexes from './0009-ingest-indexes.js';
import * as consoleIndexes from './0010-console-indexes.js';

export const migrations: Migrations = {
  '0001-dead-letters': deadLetters,
  '0002-request-logs': requestLogs,
  '0003-records': records,
  '0004-export-chunks': exportChunks,
  '0005-usage-ledger-counter-keys': usageLedgerCounterKeys,
  '0006-unattributed-audit': unattributedAudit,
  '0007-feedback-workspace': feedbackWorkspace,
  '0008-alerts': alerts,
  '0009-ingest-indexes': ingestIndexes,
  '0010-console-indexes': consoleIndexes,
};
