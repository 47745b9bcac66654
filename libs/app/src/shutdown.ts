import type { Logger } from '@pim/logging';

/** One step of a shutdown: its name (for the log) and what it does. */
export interface ShutdownStep {
  name: string;
  run(): Promise<unknown> | unknown;
}

/**
 * An ordered shutdown: on SIGTERM or SIGINT (once; a second signal changes nothing) each stage
 * runs after the previous one, the steps of a stage at once; a failing step is logged and the
 * shutdown goes on. Then the process exits 0.
 */
export class Shutdown {
  private readonly stages: ShutdownStep[][] = [];
  private stopping: Promise<void> | null = null;

  constructor(
    private readonly logger: Logger,
    private readonly exit: (code: number) => void = (code) => process.exit(code),
  ) {}

  /** Adds a stage: steps that run together, after every stage added before. */
  stage(...steps: (ShutdownStep | undefined)[]): this {
    const present = steps.filter((s): s is ShutdownStep => s !== undefined);
    if (present.length > 0) this.stages.push(present);
    return this;
  }

  /** Shuts down on SIGTERM and SIGINT. */
  onSignals(): this {
    process.on('SIGTERM', () => void this.run('SIGTERM'));
    process.on('SIGINT', () => void this.run('SIGINT'));
    return this;
  }

  /** Runs the stages in order (once), then exits 0. */
  run(reason: string): Promise<void> {
    this.stopping ??= (async () => {
      this.logger.info({ signal: reason }, 'shutting down');
      for (const stage of this.stages) {
        await Promise.all(
          stage.map(async (step) => {
            try {
              await step.run();
            } catch (err) {
              this.logger.warn({ err, step: step.name }, `shutdown step ${step.name} failed`);
            }
          }),
        );
      }
      this.logger.info('stopped');
      this.exit(0);
    })();
    return this.stopping;
  }
}
