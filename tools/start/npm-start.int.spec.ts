import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './runtime';

// How `npm start` (npm-start.mjs) picks what runs: it builds what changed, then runs the launcher
// from the build; with --source it builds nothing and runs the launcher from the TypeScript
// sources. An unknown option makes the launcher stop at once, whichever runs, so nothing starts.
function npmStart(...args: string[]): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, [join(__dirname, 'npm-start.mjs'), ...args, '--no-such-option'], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1' },
    encoding: 'utf8',
  });
  return { code: r.status, out: r.stdout + r.stderr };
}

describe('npm start: the build or the sources', () => {
  it('builds first (only what changed), then runs the launcher from dist/', () => {
    const { code, out } = npmStart();
    expect(code).toBe(1);
    expect(out).toMatch(/^\[start\] build: dist\/ \d+ files, (nothing changed|\d+ compiled or copied)/m);
    expect(out).toContain('[start] error: unknown option --no-such-option');
  });

  it('with --source, builds nothing and runs the launcher from the TypeScript sources', () => {
    const { code, out } = npmStart('--source');
    expect(code).toBe(1);
    expect(out).not.toContain('build:');
    expect(out).toContain('[start] error: unknown option --no-such-option');
  });
});
