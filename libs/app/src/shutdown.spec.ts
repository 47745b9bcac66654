import { createLogger } from '@pim/logging';
import { Shutdown } from './shutdown';
import { packageVersion } from './version';

const quiet = createLogger({ service: 'test', level: 'silent' });

describe('Shutdown', () => {
  it('runs stages in order, the steps of a stage together, goes on past a failing step and exits 0 once', async () => {
    const log: string[] = [];
    const exits: number[] = [];
    const slow = () => new Promise<void>((r) => setTimeout(() => (log.push('slow'), r()), 20));
    const shutdown = new Shutdown(quiet, (code) => exits.push(code))
      .stage({ name: 'slow', run: slow }, { name: 'fast', run: () => log.push('fast') })
      .stage(undefined, {
        name: 'broken',
        run: () => {
          throw new Error('boom');
        },
      })
      .stage({ name: 'last', run: () => log.push('last') });
    await Promise.all([shutdown.run('SIGTERM'), shutdown.run('SIGINT')]);
    expect(log).toEqual(['fast', 'slow', 'last']);
    expect(exits).toEqual([0]);
  });
});

describe('packageVersion', () => {
  it("reads the nearest package.json's version", () => {
    expect(packageVersion(__dirname)).toBe('0.1.0');
  });
});
