// What the benches read from /proc: CPU time of a process, busy time of cores, system calls of a
// process, and the processes this bench started (to find the stack's apps and services by name).
import { readdirSync, readFileSync } from 'node:fs';

/** /proc/<pid>/stat and /proc/stat count in clock ticks of 10 ms (USER_HZ 100 on Linux). */
const TICK_US = 10_000;

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces), or undefined. */
function statFields(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(') ') + 2).split(' ');
  } catch {
    return undefined; // exited
  }
}

/** CPU time (user + system, all threads) of a process so far, in microseconds; 0 once it is gone. */
export function cpuMicros(pid: number | undefined): number {
  if (pid === undefined) return 0;
  const fields = statFields(pid);
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after "pid (comm) ".
  return fields ? (Number(fields[11]) + Number(fields[12])) * TICK_US : 0;
}

/** CPU time of several processes together, in microseconds. */
export const cpuMicrosOf = (pids: readonly number[]) => pids.reduce((sum, pid) => sum + cpuMicros(pid), 0);

/** Write and read system calls of a process so far (/proc/<pid>/io), 0 when unreadable. */
export function syscalls(pid: number | undefined): { writes: number; reads: number } {
  if (pid === undefined) return { writes: 0, reads: 0 };
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    const field = (name: string) => Number(io.match(new RegExp(`^${name}: (\\d+)`, 'm'))?.[1] ?? 0);
    return { writes: field('syscw'), reads: field('syscr') };
  } catch {
    return { writes: 0, reads: 0 };
  }
}

export interface CoreTimes {
  /** Ticks spent running anything (user, nice, system, irq, softirq). */
  busy: number;
  /** Ticks the hypervisor ran something else on this virtual CPU. */
  steal: number;
  total: number;
}

/** Busy, stolen and total ticks of each listed core so far, summed (from /proc/stat). */
export function coreTimes(cores: readonly number[]): CoreTimes {
  const sum: CoreTimes = { busy: 0, steal: 0, total: 0 };
  for (const line of readFileSync('/proc/stat', 'utf8').split('\n')) {
    const match = /^cpu(\d+) (.*)$/.exec(line);
    if (!match || !cores.includes(Number(match[1]))) continue;
    const [user, nice, system, idle, iowait, irq, softirq, steal] = (match[2] ?? '')
      .trim()
      .split(/\s+/)
      .map(Number);
    const busy = (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0);
    sum.busy += busy;
    sum.steal += steal ?? 0;
    sum.total += busy + (idle ?? 0) + (iowait ?? 0) + (steal ?? 0);
  }
  return sum;
}

/** Busy and stolen share (percent) of the listed cores between two readings. */
export function coreBusyPercent(before: CoreTimes, after: CoreTimes): { busy: number; steal: number } {
  const total = after.total - before.total;
  if (total <= 0) return { busy: 0, steal: 0 };
  return {
    busy: Math.round(((after.busy - before.busy) / total) * 100),
    steal: Math.round(((after.steal - before.steal) / total) * 100),
  };
}

export interface ProcessInfo {
  pid: number;
  /** The kernel's short name (e.g. `postgres`, `redis-server`, `node`). */
  comm: string;
  /** The command line, arguments joined by spaces. */
  cmdline: string;
}

/** Every live descendant of `root` (default: this process), found through the parent pids in /proc. */
export function descendants(root = process.pid): ProcessInfo[] {
  const children = new Map<number, number[]>();
  const comms = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    const comm = text.slice(text.indexOf('(') + 1, text.lastIndexOf(')'));
    const ppid = Number(text.slice(text.lastIndexOf(') ') + 2).split(' ')[1]);
    comms.set(pid, comm);
    children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  const found: ProcessInfo[] = [];
  const queue = [...(children.get(root) ?? [])];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    } catch {
      continue;
    }
    found.push({ pid, comm: comms.get(pid) ?? '', cmdline });
    queue.push(...(children.get(pid) ?? []));
  }
  return found;
}

/**
 * Until the processes `pids()` names are idle (under 10% of a core for 250 ms), at most `maxMs`;
 * false when they were still busy then. Before a load step: the logger catching up with the last
 * step's events, say, must not load this one.
 */
export async function settle(pids: () => readonly number[], maxMs = 20_000): Promise<boolean> {
  const deadline = Date.now() + maxMs;
  while (Date.now() < deadline) {
    const list = pids();
    const cpu0 = cpuMicrosOf(list);
    await new Promise((resolve) => setTimeout(resolve, 250));
    if (cpuMicrosOf(list) - cpu0 < 25_000) return true;
  }
  return false;
}
