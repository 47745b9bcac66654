import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/** How a child ended. */
export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** What the launcher needs to start one child process. */
export interface ChildSpec {
  /** Prefix of its output lines, e.g. "webhooks" → "[webhooks] …". */
  name: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Receives each output line, already prefixed. */
  log: (line: string) => void;
  /** Colours the prefix (for terminals). */
  color?: boolean;
  /** Sees each raw line too, e.g. to notice a "ready" line. */
  onLine?: (line: string) => void;
}

/** Output lines each process keeps for a crash report. */
const RECENT_LINES = 20;

const COLORS = [36, 33, 35, 32, 34, 96, 93, 95, 92, 94];
let nextColor = 0;

/** Describes an exit for humans: "exit code 1" or "signal SIGKILL". */
export function describeExit(status: ExitStatus): string {
  return status.signal ? `signal ${status.signal}` : `exit code ${status.code}`;
}

/**
 * One child process in its own process group (so a terminal's Ctrl-C reaches only the launcher,
 * which decides the order of shutdown), with its output prefixed line by line.
 */
export class ManagedProcess {
  readonly exited: Promise<ExitStatus>;
  /** When it was started (ms since the epoch). */
  readonly startedAt = Date.now();
  private readonly child: ChildProcess;
  private status: ExitStatus | undefined;
  private readonly recent: string[] = [];

  constructor(readonly spec: ChildSpec) {
    const color = spec.color ? COLORS[nextColor++ % COLORS.length] : undefined;
    const prefix = color ? `\u001b[${color}m[${spec.name}]\u001b[0m ` : `[${spec.name}] `;
    this.child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      env: spec.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    for (const stream of [this.child.stdout, this.child.stderr]) {
      if (stream)
        createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
          spec.log(prefix + line);
          this.recent.push(line);
          if (this.recent.length > RECENT_LINES) this.recent.shift();
          spec.onLine?.(line);
        });
    }
    this.exited = new Promise((resolve) => {
      this.child.once('error', (err) => {
        spec.log(`${prefix}cannot start ${spec.command}: ${err.message}`);
        this.status = { code: 127, signal: null };
        resolve(this.status);
      });
      // 'exit', not 'close': a grandchild holding the pipes open must not hide the exit.
      this.child.once('exit', (code, signal) => {
        this.status = { code, signal };
        resolve(this.status);
      });
    });
  }

  /** Its last output lines (up to 20), unprefixed: what to show when it keeps crashing. */
  get lastLines(): readonly string[] {
    return this.recent;
  }

  /** Process id (also the id of its process group). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Still running. */
  get running(): boolean {
    return this.status === undefined && this.child.pid !== undefined;
  }

  /** Sends a signal to the process; SIGKILL goes to its whole group so nothing it started survives. */
  signal(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    try {
      if (signal === 'SIGKILL') process.kill(-pid, signal);
      else if (this.running) process.kill(pid, signal);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
    }
  }

  /** SIGTERM, then SIGKILL to the group after `graceMs`; resolves once it is gone. */
  async stop(graceMs: number): Promise<ExitStatus> {
    if (this.running) {
      this.signal('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const forced = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), graceMs);
      });
      const outcome = await Promise.race([this.exited, forced]);
      clearTimeout(timer);
      if (outcome === 'timeout') {
        this.spec.log(`[${this.spec.name}] did not stop within ${graceMs} ms; killing it`);
        this.signal('SIGKILL');
      }
    }
    const status = await this.exited;
    // Anything the process left behind in its group goes too.
    this.signal('SIGKILL');
    return status;
  }
}
