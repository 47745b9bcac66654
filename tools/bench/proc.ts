// What the benchmarks read of processes on Linux (/proc): CPU time, memory, the platform's app
// processes, the database's backends. Shared by the imports and exports benches.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** USER_HZ of /proc times (100 on every Linux we run on). */
export const CLOCK_TICKS = 100;

/** CPU time (ms) a process has used so far (0 where unreadable). */
export function cpuMs(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** Busy CPU time (ms) of the whole machine so far, all cores. */
export function machineBusyMs(): number {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return ((f[0] + f[1] + f[2] + f[5] + f[6] + f[7]) * 1000) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** The pid of one of this run's apps: a child of this process whose command line runs apps/<name>/src/main.ts. */
export function appPid(name: string): number | undefined {
  const entry = `apps/${name}/src/main.ts`;
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== process.pid) continue;
      if (
        readFileSync(`/proc/${p}/cmdline`, 'utf8')
          .split('\0')
          .some((a) => a.endsWith(entry))
      )
        return Number(p);
    } catch {
      // gone
    }
  }
  return undefined;
}

/** VmRSS and VmHWM (peak RSS) of a process, in bytes. */
export function memoryOf(pid: number | 'self'): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/** RssAnon (heaps, allocator arenas) and RssFile (mapped files: the node binary, libraries) of a process, in bytes. */
export function rssParts(pid: number): { anon: number; file: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { anon: kb('RssAnon'), file: kb('RssFile') };
}

/** Resets a process's VmHWM to its current RSS (Linux clear_refs 5); false where not allowed. */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** CPU (ms) of every process whose command name is `comm`, by pid. */
export function cpuByComm(comm: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      if (readFileSync(`/proc/${p}/comm`, 'utf8').trim() === comm) out.set(Number(p), cpuMs(Number(p)));
    } catch {
      // gone
    }
  }
  return out;
}

/** CPU of processes between two readings by pid (a process that appeared counts whole). */
export function delta(a: Map<number, number>, b: Map<number, number>): number {
  let ms = 0;
  for (const [pid, v] of b) ms += v - (a.get(pid) ?? 0);
  return ms;
}

/** RSS (bytes) of a Node process run with `args`, after `code` and a second's pause. */
export function childRss(args: string[], code = ''): number {
  const out = execFileSync(
    process.execPath,
    [...args, '-e', `${code};setTimeout(() => { console.log(process.memoryUsage().rss); process.exit(0); }, 1000)`],
    { cwd: ROOT, env: { ...process.env, SWC_NODE_PROJECT: join(ROOT, 'tsconfig.json') }, encoding: 'utf8' },
  );
  return Number(out.trim().split('\n').pop());
}

/** Open file descriptors of a process (entries of /proc/<pid>/fd); NaN where unreadable. */
export function openFds(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return NaN;
  }
}

/**
 * Established TCP connections of each process, counted by the remote port (Postgres 5432, NATS
 * 4222…): the sockets among its open files, looked up in /proc/net/tcp and tcp6.
 */
export function tcpConnections(pids: number[]): Map<number, Map<number, number>> {
  const remotePort = new Map<string, number>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // f[2] remote address:port (hex), f[3] state (01 established), f[9] inode.
      if (f.length < 10 || f[3] !== '01') continue;
      remotePort.set(f[9], parseInt(f[2].split(':')[1], 16));
    }
  }
  const out = new Map<number, Map<number, number>>();
  for (const pid of pids) {
    const byPort = new Map<number, number>();
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      // gone
    }
    for (const fd of fds) {
      let target = '';
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const m = /^socket:\[(\d+)\]$/.exec(target);
      const port = m ? remotePort.get(m[1]) : undefined;
      if (port !== undefined) byPort.set(port, (byPort.get(port) ?? 0) + 1);
    }
    out.set(pid, byPort);
  }
  return out;
}
