import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startPlatform } from './platform';
import { BUILD_DIR, BUILD_V8_FLAGS, OWN, ROOT, findRoot, nodeArgs, runnable } from './runtime';
import { apps } from './apps';

const build = { runtime: 'build', buildDir: '/repo/dist' } as const;

describe('where the launcher runs a program from', () => {
  it('finds the repository root from the sources and from inside a build', () => {
    expect(existsSync(join(ROOT, 'package-lock.json'))).toBe(true);
    expect(findRoot(join(ROOT, 'dist', 'tools', 'start'))).toBe(ROOT);
    expect(BUILD_DIR).toBe(join(ROOT, 'dist'));
  });

  it('runs as it is run itself: from the sources here (jest), from its build when compiled', () => {
    expect(OWN).toEqual({ runtime: 'source', buildDir: BUILD_DIR });
  });

  it('runs a .ts file itself from source, and its .js at the same place in the build', () => {
    const main = join(ROOT, 'apps', 'catalog', 'src', 'main.ts');
    expect(runnable(main, { runtime: 'source', buildDir: BUILD_DIR })).toBe(main);
    expect(runnable(main, { runtime: 'build', buildDir: BUILD_DIR })).toBe(join(BUILD_DIR, 'apps/catalog/src/main.js'));
    expect(() => runnable('/elsewhere/main.ts', build)).toThrow('no build holds it');
  });

  it('gives a source child swc-node’s hook, a build child the source maps and the heap sizing, both the orphan guard', () => {
    const guard = ['-r', join(__dirname, 'orphan-guard.cjs')];
    expect(nodeArgs({ runtime: 'source', buildDir: BUILD_DIR })).toEqual([
      ...guard,
      '-r',
      require.resolve('@swc-node/register'),
    ]);
    expect(nodeArgs(build, '')).toEqual([...guard, '-r', '/repo/dist/libs/app/src/source-maps.js', ...BUILD_V8_FLAGS]);
    expect(nodeArgs(build, '').join(' ')).not.toContain('swc');
  });

  it('leaves a V8 flag NODE_OPTIONS sets to NODE_OPTIONS', () => {
    expect(BUILD_V8_FLAGS).toEqual(['--max-semi-space-size=4']);
    expect(nodeArgs(build, '--max-semi-space-size=32 --trace-gc').slice(-1)).toEqual([
      '/repo/dist/libs/app/src/source-maps.js',
    ]);
    expect(nodeArgs(build, '--trace-gc').slice(-1)).toEqual(BUILD_V8_FLAGS);
  });

  it('refuses to start from a build that lacks an app, saying how to make it', async () => {
    const buildDir = join(ROOT, 'dist', '.tmp', 'no-build-here');
    const webhooks = apps.find((a) => a.name === 'webhooks')!;
    await expect(startPlatform({ apps: [webhooks], runtime: 'build', buildDir, log: () => undefined })).rejects.toThrow(
      'dist/.tmp/no-build-here/apps/webhooks/src/main.js not found (app "webhooks"): run `npm run build`',
    );
  });
});
