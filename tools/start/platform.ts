import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { AppSpec } from './app-spec';
import { apps as defaultApps } from './apps';
import { appEnvironment, appFiles, assignPorts, assignReplicaPorts, replicaName, type SharedSettings } from './app-env';
import { probeApp } from './health';
import { ManagedProcess, describeExit, type ExitStatus } from './managed-process';
import { NATS_MISSING, checkNats, findNatsServer, startLocalNats } from './nats';
import { freePort, isPortFree } from './ports';
import { ensureDatabase, redactUrl, startEmbeddedPostgres } from './postgres';
import { OWN, ROOT, guardArgs, nodeArgs, runnable, type RunFrom, type Runtime } from './runtime';
import { StartAborted, StartError, waitForExit, waitUntil } from './wait';

export { ROOT, guardArgs, nodeArgs } from './runtime';

/** How to start the platform; everything is optional. */
export interface StartPlatformOptions {
  /** Apps to run; default: tools/start/apps.ts. */
  apps?: AppSpec[];
  /** Use this Postgres; without it an embedded Postgres runs with its cluster in `<dataDir>/postgres`. */
  databaseUrl?: string;
  /** Use this NATS; without it a local nats-server runs with JetStream, its store in `<dataDir>/nats`. */
  natsUrl?: string;
  /** Default: <repo>/.data. */
  dataDir?: string;
  /** Extra variables for every app (and the source of `portEnv` values when ports are not free/based). */
  env?: Record<string, string>;
  /** 'free': every app (and an embedded Postgres / local NATS) gets a free port; a number: apps get consecutive ports from it. */
  portBase?: 'free' | number;
  /** Receives every output line (prefixed "[app] "); default: standard output. */
  log?: (line: string) => void;
  /** Port of the embedded Postgres; without it 5433, or a free one if 5433 is taken. */
  pgPort?: number;
  /** Port of the local nats-server; without it 4223, or a free one if 4223 is taken. */
  natsPort?: number;
  /** Limit for each wait (Postgres, NATS, each migration, health of each wave); default 60 s. */
  startTimeoutMs?: number;
  /** How long an app may take after SIGTERM before SIGKILL; default 15 s. */
  stopGraceMs?: number;
  /** Colour the prefixes; default: when standard output is a terminal and no `log` is given. */
  color?: boolean;
  /**
   * Processes per app (default 1), for all apps or by app name. Extra replicas get free ports;
   * callers reach every replica of a gRPC app through one target and spread their calls.
   */
  replicas?: number | Record<string, number>;
  /**
   * What happens when an app exits on its own once the platform is up: 'never' (default: it stays
   * down, as tests that kill apps expect) or 'on-crash' (`npm start`: restarted after a growing,
   * jittered delay; after `CRASH_LOOP_LIMIT` crashes in a row, each within `STABLE_MS` of its
   * start, the platform stops and `onGiveUp` gets the reason with the app's last lines).
   */
  restart?: 'never' | 'on-crash';
  /** Called once when supervision gives up on an app and stops the platform. */
  onGiveUp?: (message: string) => void;
  /** Where to keep what runs (for `npm run status`), rewritten on every start, restart and exit. */
  stateFile?: string;
  /**
   * How the apps and their migrations run: `build` (the JavaScript of `buildDir`, which `npm start`
   * builds first) or `source` (TypeScript through swc-node). Default: as this launcher runs.
   */
  runtime?: Runtime;
  /** The build the apps run from with `runtime: 'build'`; default dist/ (or the build this launcher runs from). */
  buildDir?: string;
}

/** What `npm start` keeps in `<data dir>/platform.json` for `npm run status`. */
export interface PlatformState {
  launcher_pid: number;
  updated_at: string;
  /** Every app was healthy once and the platform is not stopping. */
  up: boolean;
  database_url: string;
  nats_url: string;
  replicas: {
    app: string;
    name: string;
    kind: 'grpc' | 'http';
    port: number;
    metrics_port?: number;
    /** Absent while the replica is down (crashed, waiting for its restart). */
    pid?: number;
    started_at?: string;
    restarts: number;
  }[];
}

/** Crashes in a row (each soon after its start) after which supervision gives up. */
export const CRASH_LOOP_LIMIT = 5;
/** A process that ran this long was stable: its next crash starts the count again. */
export const STABLE_MS = 30_000;

/** The delay before the n-th restart in a row (1-based): 0.5 s doubling up to 15 s, ±25 % jitter. */
export function restartDelayMs(n: number, random: () => number = Math.random): number {
  const base = Math.min(500 * 2 ** (n - 1), 15_000);
  return Math.round(base * (0.75 + random() * 0.5));
}

/** One running process of an app. */
export interface Replica {
  /** `catalog` for the first replica, `catalog-2`… for the others (also its log prefix). */
  name: string;
  port: number;
}

/** A started platform and what a test or the launcher can do with it. */
export interface RunningPlatform {
  /** http://127.0.0.1:<gateway port>/api/v1 ('' without an HTTP app). */
  gatewayUrl: string;
  /** http://127.0.0.1:<gateway port>/docs. */
  docsUrl: string;
  databaseUrl: string;
  natsUrl: string;
  /** Port of each app by name (of its first replica). */
  ports: Record<string, number>;
  /** Every replica of each app by app name, the first first. */
  replicas: Record<string, Replica[]>;
  /** http://127.0.0.1:<port>/api/v1 of each replica of the gateway ([] without an HTTP app). */
  gatewayUrls: string[];
  /** Prometheus metrics port of each app that serves them, by name. */
  metricsPorts: Record<string, number>;
  /** Stops apps (SIGTERM, SIGKILL after the grace period), then NATS, then Postgres. Idempotent. */
  stop(): Promise<void>;
  /**
   * Sends a signal (default SIGTERM) to every replica of an app, or to one replica by its name;
   * `nats` names the local nats-server (only when the platform started one: no `natsUrl`).
   */
  kill(app: string, signal?: NodeJS.Signals): void;
  /**
   * Stops an app's replicas (or one replica by its name) if they run, starts them again and waits until healthy;
   * `nats` starts the local nats-server again on its port and JetStream store (so its streams survive).
   */
  restart(app: string): Promise<void>;
  /** How many times supervision restarted each replica (by replica name). */
  restarts(): Record<string, number>;
}

/** The nats-server a platform started, and how to start it again on the same port and store. */
interface LocalNats {
  proc: ManagedProcess;
  start(): Promise<unknown>;
}

/** Runs Postgres, NATS and the apps as child processes; `start()` once, `stop()` any time. */
export class Platform {
  private readonly apps: AppSpec[];
  private readonly log: (line: string) => void;
  private readonly color: boolean;
  private readonly baseEnv: NodeJS.ProcessEnv;
  private readonly startTimeoutMs: number;
  private readonly stopGraceMs: number;
  /** Where the apps and their migrations run from (the build or the sources). */
  private readonly from: RunFrom;
  private readonly abort = new AbortController();
  private readonly infra: ManagedProcess[] = [];
  /** The local nats-server (one of `infra`) and how to start it again, when the platform runs one. */
  private localNats: LocalNats | undefined;
  /** A supervised start of the local nats-server waiting for its delay. */
  private natsRestart: NodeJS.Timeout | undefined;
  private readonly running = new Map<string, ManagedProcess>();
  private migrating: ManagedProcess | undefined;
  private ports: Record<string, number> = {};
  private replicaPorts: Record<string, number[]> = {};
  /** Replicas being stopped on purpose (restart()), which supervision must leave alone. */
  private readonly intended = new Set<string>();
  private readonly pendingRestarts = new Map<string, NodeJS.Timeout>();
  /** Crashes in a row of each replica, and restarts in all. */
  private readonly crashes = new Map<string, number>();
  private readonly restartCount = new Map<string, number>();
  private up = false;
  private shared: SharedSettings | undefined;
  private starting: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;

  constructor(private readonly opts: StartPlatformOptions = {}) {
    this.apps = opts.apps ?? defaultApps;
    this.log = opts.log ?? ((line) => process.stdout.write(`${line}\n`));
    this.color = opts.color ?? (!opts.log && process.stdout.isTTY === true && !process.env.NO_COLOR);
    // swc-node reads decorator settings from this tsconfig; without it (another cwd) decorators fail to parse.
    this.baseEnv = { ...process.env, ...opts.env, SWC_NODE_PROJECT: join(ROOT, 'tsconfig.json') };
    this.startTimeoutMs = opts.startTimeoutMs ?? 60_000;
    this.stopGraceMs = opts.stopGraceMs ?? 15_000;
    this.from = { runtime: opts.runtime ?? OWN.runtime, buildDir: opts.buildDir ?? OWN.buildDir };
  }

  /** Starts everything and resolves once every app is healthy; on failure stops what started and rejects. */
  async start(): Promise<RunningPlatform> {
    if (this.starting) throw new Error('start() was already called');
    const attempt = this.run();
    this.starting = attempt.then(
      () => undefined,
      () => undefined,
    );
    try {
      return await attempt;
    } catch (err) {
      await this.stop();
      throw err;
    }
  }

  /** Stops apps, then NATS, then Postgres; also interrupts a start in progress. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  /** SIGKILLs every process group at once: the second Ctrl-C, when waiting is not wanted. */
  killAll(): void {
    this.abort.abort();
    for (const proc of [this.migrating, ...this.running.values(), ...this.infra]) proc?.signal('SIGKILL');
  }

  private say(message: string): void {
    this.log(this.color ? `\u001b[1m[start]\u001b[0m ${message}` : `[start] ${message}`);
  }

  private async run(): Promise<RunningPlatform> {
    const signal = this.abort.signal;
    if (signal.aborted) throw new StartAborted();
    this.checkFiles();
    // Fail before anything starts, not after the embedded Postgres came up.
    if (!this.opts.natsUrl && !findNatsServer(this.baseEnv.PATH)) throw new StartError(NATS_MISSING);
    this.ports = await assignPorts(this.apps, this.opts.portBase, this.baseEnv, freePort).catch((err: Error) => {
      throw new StartError(err.message);
    });
    if (this.opts.portBase !== 'free') await this.checkPortsFree();
    this.replicaPorts = await assignReplicaPorts(this.apps, (a) => this.replicaCount(a), this.ports, freePort);

    const dataDir = this.opts.dataDir ?? join(ROOT, '.data');
    const shared: SharedSettings = {
      databaseUrl: await this.postgres(dataDir),
      natsUrl: await this.nats(dataDir),
      eventsStream: this.baseEnv.PIM_EVENTS_STREAM || 'PIM_EVENTS',
      subjectPrefix: this.baseEnv.PIM_SUBJECT_PREFIX ?? '',
      logLevel: this.baseEnv.LOG_LEVEL || 'info',
      filesDir: join(dataDir, 'files'),
      metrics: this.opts.portBase !== 'free',
    };
    this.shared = shared;

    for (const app of this.apps.filter((a) => a.migrate)) await this.migrate(app);

    // gRPC apps first: the gateway's readiness may depend on reaching them.
    for (const kind of ['grpc', 'http'] as const) {
      const wave = this.apps.filter((a) => a.kind === kind);
      const replicas = wave.flatMap((app) => this.replicaPorts[app.name].map((_, i) => [app, i] as const));
      for (const [app, i] of replicas) this.spawn(app, i);
      await Promise.all(replicas.map(([app, i]) => this.waitHealthy(app, i)));
    }
    if (signal.aborted) throw new StartAborted();
    this.up = true;
    this.saveState();

    const front = this.apps.find((a) => a.name === 'gateway') ?? this.apps.find((a) => a.kind === 'http');
    const bases = front ? this.replicaPorts[front.name].map((port) => `http://127.0.0.1:${port}`) : [];
    const base = bases[0] ?? '';
    return {
      gatewayUrl: base && `${base}/api/v1`,
      gatewayUrls: bases.map((b) => `${b}/api/v1`),
      docsUrl: base && `${base}/docs`,
      databaseUrl: shared.databaseUrl,
      natsUrl: shared.natsUrl,
      ports: { ...this.ports },
      replicas: Object.fromEntries(
        this.apps.map((a) => [
          a.name,
          this.replicaPorts[a.name].map((port, i) => ({ name: replicaName(a.name, i), port })),
        ]),
      ),
      metricsPorts: Object.fromEntries(
        this.apps.flatMap((a) => {
          const port = a.metrics ? Number(this.appEnv(a)[a.metrics.env]) : 0;
          return port > 0 ? [[a.name, port] as const] : [];
        }),
      ),
      stop: () => this.stop(),
      kill: (app, sig = 'SIGTERM') => this.kill(app, sig),
      restart: (app) => this.restart(app),
      restarts: () => Object.fromEntries(this.restartCount),
    };
  }

  private checkFiles(): void {
    for (const app of this.apps) {
      const files = appFiles(app, ROOT);
      const needed = (app.migrate ? [files.entry, files.migrate] : [files.entry]).map((f) => this.runnable(f));
      const hint = this.from.runtime === 'build' ? ': run `npm run build`' : '';
      for (const file of needed) {
        if (!existsSync(file)) throw new StartError(`${relative(ROOT, file)} not found (app "${app.name}")${hint}`);
      }
    }
  }

  private async checkPortsFree(): Promise<void> {
    for (const app of this.apps) {
      const port = this.ports[app.name];
      if (!(await isPortFree(port))) {
        throw new StartError(
          `port ${port} of ${app.name} is in use (is the platform already running?); set ${app.portEnv} to another port`,
        );
      }
    }
  }

  // Picks the configured port (which must be free), else the default if free, else any free one.
  private async servicePort(configured: number | undefined, fallback: number, what: string): Promise<number> {
    if (configured !== undefined) {
      if (!(await isPortFree(configured))) throw new StartError(`port ${configured} for ${what} is in use`);
      return configured;
    }
    if (this.opts.portBase !== 'free' && (await isPortFree(fallback))) return fallback;
    return freePort();
  }

  private async postgres(dataDir: string): Promise<string> {
    if (this.opts.databaseUrl) {
      await ensureDatabase(this.opts.databaseUrl);
      return this.opts.databaseUrl;
    }
    const port = await this.servicePort(this.opts.pgPort, 5433, 'the embedded Postgres (PIM_PG_PORT)');
    const dir = join(dataDir, 'postgres');
    this.say(`starting the embedded Postgres on 127.0.0.1:${port} (${dir})`);
    const pg = await startEmbeddedPostgres({ ...this.serviceOptions(), dir, port });
    return pg.url;
  }

  private async nats(dataDir: string): Promise<string> {
    if (this.opts.natsUrl) {
      await checkNats(this.opts.natsUrl);
      return this.opts.natsUrl;
    }
    const port = await this.servicePort(this.opts.natsPort, 4223, 'the local nats-server (PIM_NATS_PORT)');
    const dir = join(dataDir, 'nats');
    this.say(`starting nats-server with JetStream on 127.0.0.1:${port} (${dir})`);
    const start = () =>
      startLocalNats({ ...this.serviceOptions(), nodeArgs: guardArgs(), dir, port, track: (p) => this.trackNats(p) });
    const nats = await start();
    this.localNats = { proc: nats.process, start };
    return nats.url;
  }

  /** Keeps the newest nats-server in the old one's place in `infra`, so shutdown's order stays. */
  private trackNats(proc: ManagedProcess): void {
    const old = this.localNats ? this.infra.indexOf(this.localNats.proc) : -1;
    if (old >= 0) this.infra[old] = proc;
    else this.infra.push(proc);
    if (this.localNats) this.localNats.proc = proc;
    void proc.exited.then((status) => this.natsExited(proc, status));
  }

  /**
   * The local nats-server exited on its own: with `restart: 'on-crash'` (`npm start`) it is
   * started again on its port and store like a crashed app (the apps reconnect by themselves and
   * their outboxes hold the events meanwhile), a crash loop stopping everything.
   */
  private natsExited(proc: ManagedProcess, status: ExitStatus): void {
    const name = 'nats';
    if (this.abort.signal.aborted || this.intended.has(name) || this.localNats?.proc !== proc) return;
    this.say(`nats-server exited (${describeExit(status)})`);
    if (!this.up || this.opts.restart !== 'on-crash') return;
    const inARow = this.countCrash(name, proc);
    if (inARow >= CRASH_LOOP_LIMIT) return this.giveUp(name, inARow, proc);
    const delay = restartDelayMs(inARow);
    this.say(`starting nats-server again in ${(delay / 1000).toFixed(1)} s (crash ${inARow} in a row)`);
    this.natsRestart = setTimeout(() => {
      this.natsRestart = undefined;
      if (this.abort.signal.aborted || this.intended.has(name) || !this.localNats) return;
      this.restartCount.set(name, (this.restartCount.get(name) ?? 0) + 1);
      // One that dies again during its start is supervised by its own exit.
      this.localNats
        .start()
        .catch((err: unknown) => this.say(`nats-server did not start again: ${(err as Error).message}`));
    }, delay);
  }

  private ownNats(): LocalNats {
    if (!this.localNats) throw new Error('no local nats-server to control: this platform uses the NATS at natsUrl');
    return this.localNats;
  }

  /** The file this platform runs for a program's source (its .js in the build, or itself). */
  private runnable(source: string): string {
    try {
      return runnable(source, this.from);
    } catch (err) {
      throw new StartError((err as Error).message);
    }
  }

  private serviceOptions() {
    return {
      // The embedded Postgres helper runs as this launcher does.
      nodeArgs: nodeArgs(OWN),
      env: this.baseEnv,
      cwd: ROOT,
      log: this.log,
      color: this.color,
      timeoutMs: this.startTimeoutMs,
      signal: this.abort.signal,
      track: (proc: ManagedProcess) => this.infra.push(proc),
    };
  }

  private appEnv(app: AppSpec, replica = 0): NodeJS.ProcessEnv {
    if (!this.shared) throw new Error('shared services are not up yet');
    return appEnvironment(app, this.apps, this.replicaPorts, this.shared, this.baseEnv, replica);
  }

  private replicaCount(app: AppSpec): number {
    const wanted = this.opts.replicas;
    const count = typeof wanted === 'number' ? wanted : (wanted?.[app.name] ?? 1);
    if (!Number.isInteger(count) || count < 1) throw new StartError(`replicas of ${app.name} must be 1 or more`);
    return count;
  }

  private async migrate(app: AppSpec): Promise<void> {
    this.say(`migrating ${app.name}`);
    const proc = new ManagedProcess({
      name: `${app.name}:migrate`,
      command: process.execPath,
      args: [...nodeArgs(this.from), this.runnable(appFiles(app, ROOT).migrate)],
      env: this.appEnv(app),
      cwd: ROOT,
      log: this.log,
      color: this.color,
    });
    this.migrating = proc;
    const status = await waitForExit(proc.exited, this.abort.signal, this.startTimeoutMs, `migrations of ${app.name}`);
    this.migrating = undefined;
    if (status.code !== 0)
      throw new StartError(
        `migrations of ${app.name} failed (${describeExit(status)}); see the [${app.name}:migrate] lines above`,
      );
  }

  private spawn(app: AppSpec, replica: number): ManagedProcess {
    if (this.abort.signal.aborted) throw new StartAborted();
    const name = replicaName(app.name, replica);
    const proc = new ManagedProcess({
      name,
      command: process.execPath,
      args: [...nodeArgs(this.from), this.runnable(appFiles(app, ROOT).entry)],
      env: this.appEnv(app, replica),
      cwd: ROOT,
      log: this.log,
      color: this.color,
    });
    this.running.set(name, proc);
    this.saveState();
    void proc.exited.then((status) => {
      this.saveState();
      if (this.abort.signal.aborted || this.intended.has(name)) return;
      this.say(`${name} exited (${describeExit(status)})`);
      if (this.up && this.opts.restart === 'on-crash') this.supervise(app, replica, proc);
    });
    return proc;
  }

  /** Writes what runs where to `stateFile` (see PlatformState), if one was given. */
  private saveState(): void {
    const file = this.opts.stateFile;
    if (!file || !this.shared) return;
    const state: PlatformState = {
      launcher_pid: process.pid,
      updated_at: new Date().toISOString(),
      up: this.up && !this.abort.signal.aborted,
      database_url: redactUrl(this.shared.databaseUrl),
      nats_url: this.shared.natsUrl,
      replicas: this.apps.flatMap((app) =>
        (this.replicaPorts[app.name] ?? []).map((port, i) => {
          const name = replicaName(app.name, i);
          const proc = this.running.get(name);
          const metrics = app.metrics ? Number(this.appEnv(app, i)[app.metrics.env]) : 0;
          return {
            app: app.name,
            name,
            kind: app.kind,
            port,
            ...(metrics > 0 ? { metrics_port: metrics } : {}),
            pid: proc?.running ? proc.pid : undefined,
            started_at: proc?.running ? new Date(proc.startedAt).toISOString() : undefined,
            restarts: this.restartCount.get(name) ?? 0,
          };
        }),
      ),
    };
    try {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(`${file}.tmp`, `${JSON.stringify(state, null, 2)}\n`);
      renameSync(`${file}.tmp`, file);
    } catch (err) {
      this.say(`cannot write ${file}: ${(err as Error).message}`);
    }
  }

  /** After a crash: restart later, or give up on a crash loop and stop everything. */
  private supervise(app: AppSpec, replica: number, proc: ManagedProcess): void {
    const name = replicaName(app.name, replica);
    const inARow = this.countCrash(name, proc);
    if (inARow >= CRASH_LOOP_LIMIT) return this.giveUp(name, inARow, proc);
    const delay = restartDelayMs(inARow);
    this.say(`restarting ${name} in ${(delay / 1000).toFixed(1)} s (crash ${inARow} in a row)`);
    const timer = setTimeout(() => {
      this.pendingRestarts.delete(name);
      if (this.abort.signal.aborted || this.intended.has(name)) return;
      this.restartCount.set(name, (this.restartCount.get(name) ?? 0) + 1);
      this.spawn(app, replica);
      // A replica that dies again before it is healthy is supervised by its exit handler.
      this.waitHealthy(app, replica).catch(() => undefined);
    }, delay);
    this.pendingRestarts.set(name, timer);
  }

  /** Crashes in a row of a supervised process, this one counted (one that had run STABLE_MS starts afresh). */
  private countCrash(name: string, proc: ManagedProcess): number {
    const stable = Date.now() - proc.startedAt >= STABLE_MS;
    const inARow = stable ? 1 : (this.crashes.get(name) ?? 0) + 1;
    this.crashes.set(name, inARow);
    return inARow;
  }

  /** A crash loop: says so with the process's last lines and stops everything. */
  private giveUp(name: string, inARow: number, proc: ManagedProcess): void {
    const seconds = Math.round((Date.now() - proc.startedAt) / 100) / 10;
    const lines = proc.lastLines.length > 0 ? proc.lastLines.map((l) => `  ${l}`).join('\n') : '  (no output)';
    const message =
      `${name} crashed ${inARow} times in a row, the last ${seconds} s after its start; ` +
      `stopping the platform. Its last lines:\n${lines}`;
    this.say(message);
    void this.stop().then(() => this.opts.onGiveUp?.(message));
  }

  private async waitHealthy(app: AppSpec, replica: number): Promise<void> {
    const name = replicaName(app.name, replica);
    const proc = this.running.get(name);
    if (!proc) throw new Error(`${name} is not running`);
    const port = this.replicaPorts[app.name][replica];
    await waitUntil({
      what: name,
      timeoutMs: this.startTimeoutMs,
      signal: this.abort.signal,
      exited: proc.exited,
      exitMessage: (s) => `${name} exited during start-up (${describeExit(s)}); see the [${name}] lines above`,
      check: () => probeApp(app, port),
    });
    this.say(`${name} is healthy on 127.0.0.1:${port}`);
  }

  /** The replicas a name means: every replica of an app, or the one replica so named. */
  private targets(name: string): { app: AppSpec; replica: number }[] {
    for (const app of this.apps) {
      const count = this.replicaPorts[app.name]?.length ?? 1;
      if (name === app.name) return Array.from({ length: count }, (_, replica) => ({ app, replica }));
      for (let replica = 1; replica < count; replica++)
        if (name === replicaName(app.name, replica)) return [{ app, replica }];
    }
    throw new Error(`no app or replica named ${name} (apps: ${this.apps.map((a) => a.name).join(', ')})`);
  }

  private kill(name: string, signal: NodeJS.Signals): void {
    if (name === 'nats') return this.ownNats().proc.signal(signal);
    for (const { app, replica } of this.targets(name)) this.running.get(replicaName(app.name, replica))?.signal(signal);
  }

  private async restart(name: string): Promise<void> {
    if (name === 'nats') {
      const nats = this.ownNats();
      if (this.abort.signal.aborted) throw new StartAborted();
      clearTimeout(this.natsRestart);
      this.natsRestart = undefined;
      this.intended.add(name);
      try {
        await nats.proc.stop(this.stopGraceMs);
        this.say('starting nats-server again');
        await nats.start();
      } finally {
        this.intended.delete(name);
      }
      return;
    }
    for (const { app, replica } of this.targets(name)) {
      if (this.abort.signal.aborted) throw new StartAborted();
      const replicaNamed = replicaName(app.name, replica);
      this.intended.add(replicaNamed);
      clearTimeout(this.pendingRestarts.get(replicaNamed));
      this.pendingRestarts.delete(replicaNamed);
      try {
        await this.running.get(replicaNamed)?.stop(this.stopGraceMs);
      } finally {
        this.intended.delete(replicaNamed);
      }
      this.spawn(app, replica);
      await this.waitHealthy(app, replica);
    }
  }

  private async shutdown(): Promise<void> {
    this.abort.abort();
    for (const timer of this.pendingRestarts.values()) clearTimeout(timer);
    this.pendingRestarts.clear();
    clearTimeout(this.natsRestart);
    // Let a start in progress notice and return, so every process it made is known here.
    await this.starting;
    const grace = this.stopGraceMs;
    if (this.migrating) await this.migrating.stop(grace);
    const apps = [...this.running.values()].filter((p) => p.running);
    if (apps.length > 0) this.say(`stopping ${apps.map((p) => p.spec.name).join(', ')}`);
    await Promise.all([...this.running.values()].map((p) => p.stop(grace)));
    this.saveState();
    // Reverse start order: NATS before Postgres.
    for (const proc of [...this.infra].reverse()) {
      this.say(`stopping ${proc.spec.name}`);
      await proc.stop(grace);
    }
  }
}

/** Starts the platform (see StartPlatformOptions) and resolves once every app is healthy. */
export function startPlatform(opts: StartPlatformOptions = {}): Promise<RunningPlatform> {
  return new Platform(opts).start();
}
