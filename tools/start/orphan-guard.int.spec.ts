import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { descendants } from './fixtures/process-tree';

const GUARD = join(__dirname, 'orphan-guard.cjs');

async function eventually(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(100);
  }
}

/**
 * A parent (standing for the launcher) that starts a child with the guard preloaded; the child
 * writes its pid, then what it receives, to `log`, and `exit`s after `exitAfterMs` unless told.
 */
function parentWithGuardedChild(log: string, exitAfterMs?: number) {
  const child = `
    const fs = require('node:fs');
    fs.writeFileSync(${JSON.stringify(log)}, 'pid ' + process.pid + '\\n');
    process.on('SIGTERM', () => { fs.appendFileSync(${JSON.stringify(log)}, 'SIGTERM\\n'); process.exit(0); });
    setInterval(() => undefined, 1000);
    ${exitAfterMs === undefined ? '' : `setTimeout(() => process.exit(0), ${exitAfterMs});`}`;
  const parent = `
    const { spawn } = require('node:child_process');
    spawn(process.execPath, ['-r', ${JSON.stringify(GUARD)}, '-e', ${JSON.stringify(child)}], { stdio: 'ignore', detached: true });
    setInterval(() => undefined, 1000);`;
  return spawn(process.execPath, ['-e', parent], { stdio: 'ignore' });
}

describe('the orphan guard (orphan-guard.cjs)', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'pim-orphan-'));
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const pidIn = (log: string) => Number(/^pid (\d+)/.exec(readFileSync(log, 'utf8'))?.[1]);
  const alive = (pid: number) => descendants(1).some((p) => p.pid === pid);

  it('sends SIGTERM to a process whose parent was killed; the watch is a shell process, its child', async () => {
    const log = join(dir, 'orphan.log');
    const parent = parentWithGuardedChild(log);
    try {
      await eventually(() => existsSync(log));
      const pid = pidIn(log);
      expect(descendants(pid).filter((p) => p.ppid === pid)).toEqual([
        expect.objectContaining({ command: expect.stringMatching(/^\/bin\/sh -c /) }),
      ]);
      parent.kill('SIGKILL');
      await eventually(() => readFileSync(log, 'utf8').includes('SIGTERM'));
      await eventually(() => !alive(pid));
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('goes away with the process it watches when that one exits by itself', async () => {
    const log = join(dir, 'exits.log');
    const parent = parentWithGuardedChild(log, 500);
    try {
      await eventually(() => existsSync(log));
      const pid = pidIn(log);
      await eventually(() => !alive(pid));
      // The watch notices within a second or two, and leaves nothing behind.
      await eventually(
        () => !descendants(1).some((p) => p.command.includes('orphan-guard') && p.command.includes(` ${pid} `)),
        5_000,
      );
      expect(readFileSync(log, 'utf8')).not.toContain('SIGTERM');
    } finally {
      parent.kill('SIGKILL');
    }
  });
});
