import type { DataSource } from 'typeorm';
import { LISTEN_PURPOSE, PgListener, pgClientConfigOf } from './listener';
import { Wakeup } from './wakeup';

/** What a loop logs with (a pino logger fits). */
export interface LoopLogger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface NotifiedLoopOptions {
  dataSource: DataSource;
  /** The NOTIFY channel that announces new work. */
  channel: string;
  /** The loop in words, for logs: `outbox relay`. */
  name: string;
  logger: LoopLogger;
  /** Rounds kept in flight at once (`loop(0)`, `loop(1)`…), all woken by the same NOTIFY. Default 1. */
  loops?: number;
}

/**
 * A background loop of one process that Postgres NOTIFY wakes: a LISTEN on the process's shared
 * listening connection (coming back by itself; while it is away the loop only polls), a wakeable wait, and the
 * start/stop lifecycle. Work committed while nobody listened is found by the next round, as a
 * (re)connected listener wakes the loop. Subclasses write `loop()`, ending it when `stopping`.
 */
export abstract class NotifiedLoop {
  protected readonly wakeup = new Wakeup();
  protected stopping = false;
  private running: Promise<void> | null = null;
  private readonly listener: PgListener;

  constructor(private readonly loopOpts: NotifiedLoopOptions) {
    this.listener = new PgListener({
      config: pgClientConfigOf(loopOpts.dataSource, LISTEN_PURPOSE),
      channel: loopOpts.channel,
      onNotify: () => this.wakeup.wake(),
      onListening: () => this.wakeup.wake(),
      onLost: (err) => {
        if (!this.stopping)
          loopOpts.logger.warn(
            { err },
            `${loopOpts.name} lost (or could not open) its LISTEN connection; polling until it is back`,
          );
      },
    });
  }

  /** Starts the loop in the background; resolves once the first LISTEN attempt is made (it never throws). */
  async start(): Promise<void> {
    if (this.running) return;
    this.stopping = false;
    const listening = this.listener.start();
    const loops = this.loopOpts.loops ?? 1;
    this.running = listening
      .then(() => Promise.all(Array.from({ length: loops }, (_, index) => this.loop(index))))
      .then(
        () => undefined,
        (err: unknown) => {
          // The loop catches everything itself; this only guards against a bug taking the process down.
          this.loopOpts.logger.error({ err }, `${this.loopOpts.name} loop ended unexpectedly`);
        },
      );
    await listening;
  }

  /** Wakes the loop now (work was committed in this process). */
  wake(): void {
    this.wakeup.wake();
  }

  /** Whether the loop runs (started and not stopped). */
  protected get isRunning(): boolean {
    return this.running !== null;
  }

  /** Lets the current rounds finish, then stops the loop and closes the LISTEN connection. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.stopping = true;
    this.wakeup.interrupt();
    await this.running;
    this.running = null;
    await this.listener.stop();
  }

  /** Rounds of work until `stopping`, waiting on `wakeup` between them; `index` tells concurrent loops apart. */
  protected abstract loop(index: number): Promise<void>;
}
