// CPU time of processes read from /proc/<pid>/stat (Linux): one process, or a Postgres server whole
// (the postmaster, every backend and auxiliary process, and the children it has already reaped).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

function clockTicks(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
}
const TICKS = clockTicks();

interface Stat {
  readonly ppid: number;
  /** utime + stime, in microseconds. */
  readonly own: number;
  /** cutime + cstime (children waited for), in microseconds. */
  readonly children: number;
}

function stat(pid: number): Stat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: fields after its last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const at = (field: number) => Number(fields[field - 3]);
  const us = (ticks: number) => (ticks * 1_000_000) / TICKS;
  return { ppid: at(4), own: us(at(14) + at(15)), children: us(at(16) + at(17)) };
}

/** CPU microseconds one process has used so far (undefined once it is gone). */
export function processCpuUs(pid: number): number | undefined {
  return stat(pid)?.own;
}

/** The postmaster of a backend (its parent process). */
export function postmasterOf(backendPid: number): number | undefined {
  return stat(backendPid)?.ppid;
}

/**
 * CPU microseconds of a whole Postgres server so far: the postmaster's own and its reaped children's,
 * plus every live child's. A backend that exits between two readings moves from the second sum to
 * the first, so differences between readings count it once.
 */
export function serverCpuUs(postmasterPid: number): number | undefined {
  const master = stat(postmasterPid);
  if (!master) return undefined;
  let total = master.own + master.children;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const child = stat(Number(entry));
    if (child?.ppid === postmasterPid) total += child.own;
  }
  return total;
}
