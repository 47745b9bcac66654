import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createTestDatabase, createTestStream, type TestDatabase, type TestStream } from '@pim/testing';
import { newSecretsKey } from '@pim/secrets';
import { apps } from '../start/apps';
import { probeGrpc } from '../start/health';
import { startPlatform, type RunningPlatform } from '../start/platform';
import { ROOT } from '../start/runtime';
import { descendants } from '../start/fixtures/process-tree';

const BUILDER = join(__dirname, 'build.mjs');

/** `npm run build` on a repository: its exit code and output. */
function runBuild(root: string, ...args: string[]): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, [BUILDER, '--root', root, ...args], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout + r.stderr };
}

function write(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

// A small repository with the shapes the real one has: an app, a lib it imports as @pim/<lib>,
// a decorated class, a test and a testing helper (never built), a launcher helper (copied).
describe('npm run build on a small repository', () => {
  let root: string;
  const text = (path: string) => readFileSync(join(root, path), 'utf8');

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'pim-build-'));
    writeFileSync(join(root, '.swcrc'), readFileSync(join(ROOT, '.swcrc')));
    write(
      root,
      'libs/greet/package.json',
      JSON.stringify({ name: '@pim/greet', version: '1.2.3', main: 'src/index.ts' }),
    );
    write(root, 'libs/greet/src/index.ts', 'export const greet = (who: string): string => `hello ${who}`;\n');
    write(root, 'libs/greet/src/greet.spec.ts', "it('is a test', () => undefined);\n");
    write(root, 'libs/greet/src/testing/helper.ts', 'export const helper = 1;\n');
    write(
      root,
      'apps/shop/package.json',
      JSON.stringify({ name: '@pim/shop-app', version: '0.4.0', main: 'src/main.ts' }),
    );
    write(
      root,
      'apps/shop/src/main.ts',
      [
        "import { greet } from '@pim/greet';",
        'const column = (): PropertyDecorator => () => undefined;',
        'export class Shop {',
        '  @column() name!: string;',
        '}',
        'console.log(greet(new Shop().constructor.name));',
        "if (process.argv.includes('--throw')) throw new Error('on purpose');",
        '',
      ].join('\n'),
    );
    write(root, 'tools/start/helper.cjs', "'use strict';\n");
  });

  afterAll(() => root && rmSync(root, { recursive: true, force: true }));

  it('compiles each .ts once, with decorator metadata and a source map; resolves @pim/<lib> inside the build', () => {
    const first = runBuild(root);
    expect(first).toEqual({ code: 0, out: expect.stringMatching(/ 3 files, 3 compiled or copied \(\d+ ms\)\n$/) });
    expect(text('dist/apps/shop/src/main.js')).toContain('_ts_metadata("design:type", String)');
    expect(text('dist/apps/shop/src/main.js')).toMatch(/\/\/# sourceMappingURL=main\.js\.map\n$/);
    expect(JSON.parse(text('dist/apps/shop/src/main.js.map')).sources).toEqual(['../../../../apps/shop/src/main.ts']);
    expect(existsSync(join(root, 'dist/libs/greet/src/greet.spec.js'))).toBe(false);
    expect(existsSync(join(root, 'dist/libs/greet/src/testing/helper.js'))).toBe(false);
    expect(text('dist/tools/start/helper.cjs')).toBe("'use strict';\n");
    expect(JSON.parse(text('dist/apps/shop/package.json'))).toMatchObject({ version: '0.4.0', main: 'src/main.js' });
    const run = (...args: string[]) =>
      spawnSync(process.execPath, ['--enable-source-maps', join(root, 'dist/apps/shop/src/main.js'), ...args], {
        encoding: 'utf8',
      });
    expect(run().stdout).toBe('hello Shop\n');
    // The stack names the TypeScript line.
    expect(run('--throw').stderr).toContain(`${join(root, 'apps/shop/src/main.ts')}:7`);
  });

  it('compiles again only what changed, and removes the outputs of a deleted source', () => {
    expect(runBuild(root).out).toMatch(/ 3 files, nothing changed/);
    write(root, 'libs/greet/src/index.ts', 'export const greet = (who: string): string => `hi ${who}`;\n');
    expect(runBuild(root).out).toMatch(/ 3 files, 1 compiled or copied/);
    write(root, 'libs/greet/src/extra.ts', 'export const extra = 1;\n');
    expect(runBuild(root).out).toMatch(/ 4 files, 1 compiled or copied/);
    rmSync(join(root, 'libs/greet/src/extra.ts'));
    expect(runBuild(root).out).toMatch(/ 3 files, nothing changed, 1 removed/);
    expect(existsSync(join(root, 'dist/libs/greet/src/extra.js'))).toBe(false);
  });

  it('fails on a file swc cannot compile, names it, and tries it again next time', () => {
    write(root, 'libs/greet/src/broken.ts', 'export const = ;\n');
    const broken = runBuild(root);
    expect(broken.code).toBe(1);
    expect(broken.out).toContain('libs/greet/src/broken.ts:');
    expect(broken.out).toContain('build: 1 file(s) failed');
    expect(runBuild(root).code).toBe(1);
    rmSync(join(root, 'libs/greet/src/broken.ts'));
    expect(runBuild(root).code).toBe(0);
  });

  it('refuses an output folder outside the repository (third-party packages would not resolve)', () => {
    const outside = runBuild(root, '--out', tmpdir());
    expect(outside.code).not.toBe(0);
    expect(outside.out).toContain('the output folder must be inside');
  });
});

// The repository's own build, into a folder of its own, and an app started from it as `npm start` does.
describe('the repository built, and an app started from the build', () => {
  let out: string;
  let db: TestDatabase;
  let stream: TestStream;
  let platform: RunningPlatform | undefined;

  beforeAll(async () => {
    // Inside dist/, which git, prettier, eslint and jest's module map ignore (a copy of the
    // workspaces' package.json files anywhere else would collide in jest's map).
    mkdirSync(join(ROOT, 'dist', '.tmp'), { recursive: true });
    out = mkdtempSync(join(ROOT, 'dist', '.tmp', 'build-test-'));
    execFileSync(process.execPath, [BUILDER, '--out', out, '--quiet'], { cwd: ROOT });
    db = await createTestDatabase('build');
    stream = await createTestStream('build');
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
    await stream?.destroy();
    await db?.drop();
    if (out) rmSync(out, { recursive: true, force: true });
  });

  it('holds every app’s main and migrate, the libs behind @pim/<lib>, the launcher and the protos', () => {
    for (const app of apps)
      for (const entry of ['main', 'migrate'])
        expect({ app, entry, built: existsSync(join(out, 'apps', app.name, 'src', `${entry}.js`)) }).toEqual({
          app,
          entry,
          built: true,
        });
    expect(JSON.parse(readFileSync(join(out, 'node_modules/@pim/db/package.json'), 'utf8')).main).toBe(
      '../../../libs/db/src/index.js',
    );
    expect(existsSync(join(out, 'tools/start/main.js'))).toBe(true);
    expect(existsSync(join(out, 'protos/pim/webhooks/v1/webhooks.proto'))).toBe(true);
  });

  it('starts the webhooks app from it (migrations too) until healthy, with plain node', async () => {
    const webhooks = apps.find((a) => a.name === 'webhooks')!;
    platform = await startPlatform({
      apps: [webhooks],
      runtime: 'build',
      buildDir: out,
      databaseUrl: db.url,
      natsUrl: stream.url,
      portBase: 'free',
      env: {
        PIM_EVENTS_STREAM: stream.name,
        PIM_SUBJECT_PREFIX: stream.subjectPrefix,
        PIM_SECRETS_KEYS: newSecretsKey('build'),
        LOG_LEVEL: 'warn',
      },
      log: () => undefined,
    });
    expect(await probeGrpc(`127.0.0.1:${platform.ports.webhooks}`)).toEqual({ ok: true });
    const app = descendants().find((p) => p.command.includes('/apps/webhooks/src/main'));
    expect(app?.command).toContain(join(out, 'apps/webhooks/src/main.js'));
    expect(app?.command).toContain(join(out, 'libs/app/src/source-maps.js'));
    expect(app?.command).not.toContain('swc');
  });

  it('loads a proto package’s generated contracts the first time an app reads them', () => {
    const script = `
      const contracts = require(${JSON.stringify(join(out, 'libs/contracts/src/index.js'))});
      const loaded = () => Object.keys(require.cache).filter((k) => k.includes('/gen/pim/')).map((k) => k.split('/gen/pim/')[1]);
      const before = loaded();
      const service = typeof contracts.webhooks.WebhooksServiceService;
      console.log(JSON.stringify({ before, service, after: loaded(), names: Object.keys(contracts) }));`;
    const r = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as Record<
      string,
      unknown
    >;
    expect(r).toEqual({
      before: [],
      service: 'object',
      after: ['webhooks/v1/webhooks.js', 'common/v1/common.js'],
      names: expect.arrayContaining(['webhooks', 'orders', 'products', 'PROTO_ROOT']),
    });
  });

  it('names the .ts line in a stack trace of the build (the apps’ source-map preload)', () => {
    const r = spawnSync(
      process.execPath,
      [
        '-r',
        join(out, 'libs/app/src/source-maps.js'),
        '-e',
        `require(${JSON.stringify(join(out, 'libs/ids/src/index.js'))}).requireId('x', 'brand')`,
      ],
      { encoding: 'utf8' },
    );
    expect(r.stderr).toMatch(
      new RegExp(`at Object\\.requireId \\(${join(ROOT, 'libs/ids/src/index.ts')}:\\d+:\\d+\\)`),
    );
  });
});
