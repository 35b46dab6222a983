// Which user a server runs as: Postgres refuses root, so as root we borrow the `postgres` account.
import { readFileSync } from 'node:fs';

export interface RunAs {
  readonly uid: number;
  readonly gid: number;
  readonly user: string;
}

/** The unprivileged account to run Postgres as, or undefined when we are not root. */
export function postgresRunAs(): RunAs | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  const accounts = readPasswd();
  const account = accounts.get('postgres') ?? accounts.get('nobody');
  if (!account) {
    throw new Error(
      'running as root, and neither a `postgres` nor a `nobody` user exists to run Postgres as',
    );
  }
  return account;
}

function readPasswd(): Map<string, RunAs> {
  const accounts = new Map<string, RunAs>();
  let text = '';
  try {
    text = readFileSync('/etc/passwd', 'utf8');
  } catch {
    return accounts;
  }
  for (const line of text.split('\n')) {
    const [user, , uid, gid] = line.split(':');
    if (!user || uid === undefined || gid === undefined) continue;
    const parsed = { user, uid: Number(uid), gid: Number(gid) };
    if (Number.isInteger(parsed.uid) && Number.isInteger(parsed.gid)) accounts.set(user, parsed);
  }
  return accounts;
}
