// Free TCP ports for servers we start ourselves.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * The kernel's ephemeral range: outgoing connections and `listen(0)` take their local ports from
 * it, so a port probed there can be gone by the time a child process binds it (CI saw a gateway
 * lose its port this way). Linux's default when /proc cannot be read.
 */
export function ephemeralRange(): { low: number; high: number } {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    if (low && high && low <= high) return { low, high };
  } catch {
    // Not Linux, or /proc hidden: fall through.
  }
  return { low: 32_768, high: 60_999 };
}

/** Ports chosen from below the ephemeral range; never the privileged ones. */
function candidateRange(): { low: number; high: number } {
  const { low } = ephemeralRange();
  if (low > 12_000) return { low: 10_000, high: low - 1 };
  // An unusual range that starts low: use the ports above it instead.
  const { high } = ephemeralRange();
  return { low: Math.min(high + 1, 65_000), high: 65_535 };
}

const handedOut = new Set<number>();

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    // All addresses: a server that later binds 0.0.0.0 or 127.0.0.1 finds the port free either way.
    server.listen({ port, host: '0.0.0.0', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * A port no server holds, picked at random outside the kernel's ephemeral range (so no outgoing
 * connection or `listen(0)` elsewhere takes it in between) and never the same twice in a process.
 * Still racy against another process choosing the same port: launchers retry on a bind failure.
 */
export async function freePort(): Promise<number> {
  const { low, high } = candidateRange();
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (handedOut.has(port)) continue;
    if (await bindable(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port found between ${low} and ${high}`);
}
