import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { docPaths, exists, expandBraces, fileIndex, missingPaths } from './docs-paths';

// Every path README.md and docs/ name exists (docs-paths.ts says what counts as a path). The
// repository's files are git's (tracked, and new ones not ignored) that are on disk, so a path to a
// built or downloaded file (dist/, node_modules/) never passes by chance.
const root = join(__dirname, '..', '..');

function repositoryFiles(): string[] {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((f) => f && existsSync(join(root, f)));
}

describe('paths named in the docs', () => {
  it('all exist: README.md and every doc under docs/', () => {
    const files = repositoryFiles();
    const docs = files
      .filter((f) => f === 'README.md' || (f.startsWith('docs/') && f.endsWith('.md')))
      .map((doc) => ({ doc, text: readFileSync(join(root, doc), 'utf8') }));
    expect(docs.length).toBeGreaterThan(10);
    expect(missingPaths(docs, fileIndex(files))).toEqual([]);
  });
});

describe('docPaths', () => {
  it('takes link targets relative to the doc, and leaves URLs and anchors out', () => {
    const text = [
      'See [the rules](rules.md#errors), [top](#top), [site](https://example.com/docs/x) and',
      '[deploy](../deploy.md) and ![a picture](img/a.png "A").',
      '[ref]: ../apps/gateway.md',
    ].join('\n');
    expect(docPaths('docs/platform/kit.md', text).map((p) => [p.line, p.path])).toEqual([
      [1, 'docs/platform/rules.md'],
      [2, 'docs/deploy.md'],
      [2, 'docs/platform/img/a.png'],
      [3, 'docs/apps/gateway.md'],
    ]);
  });

  it('takes words under the top folders anywhere else, without trailing punctuation', () => {
    const text = [
      'Run `node -r @swc-node/register tools/image/build.ts`; see docs/deploy.md.',
      '    apps/<app>/src: catalog/ → product/ (`libs/resources/src/{taxonomy,products}.ts`), .ci/run',
      'Not paths: https://example.com/apps/x, /api/v1/imports, @pim/db, my-apps/x.',
    ].join('\n');
    expect(docPaths('README.md', text).map((p) => [p.line, p.path])).toEqual([
      [1, 'tools/image/build.ts'],
      [1, 'docs/deploy.md'],
      [2, 'apps/<app>/src'],
      [2, 'libs/resources/src/{taxonomy,products}.ts'],
      [2, '.ci/run'],
    ]);
  });

  it("leaves kubectl's deploy/<name> (a Deployment) alone", () => {
    const text = 'kubectl exec -n pim deploy/nats-box -- nats stream info\nkubectl apply -f deploy/k8s/base';
    expect(docPaths('docs/deploy.md', text).map((p) => p.path)).toEqual(['deploy/k8s/base']);
  });
});

describe('exists', () => {
  const index = fileIndex(['apps/catalog/src/main.ts', 'apps/catalog/src/brand/brand.resource.ts', 'docs/deploy.md']);

  it('finds files and folders; a trailing slash asks for a folder', () => {
    expect(exists('apps/catalog/src/main.ts', index)).toBe(true);
    expect(exists('apps/catalog/src/', index)).toBe(true);
    expect(exists('docs/deploy.md/', index)).toBe(false);
    expect(exists('apps/catalog/src/app.ts', index)).toBe(false);
  });

  it('reads placeholders, globs, ellipses and braces as patterns that must match something', () => {
    expect(exists('apps/<app>/src/<resource>/<resource>.resource.ts', index)).toBe(true);
    expect(exists('apps/*/src/main.ts', index)).toBe(true);
    expect(exists('apps/**/brand.resource.ts', index)).toBe(true);
    expect(exists('apps/catalog/…', index)).toBe(true);
    expect(exists('docs/{deploy,testing}.md', index)).toBe(true);
    expect(exists('apps/<app>/src/links/', index)).toBe(false);
    expect(exists('apps/<app>/src/migrations/<timestamp>-brand-website.ts', index)).toBe(false);
  });

  it('expands braces into every alternative', () => {
    expect(expandBraces('libs/{a,b}/src/{x,y}.ts')).toEqual([
      'libs/a/src/x.ts',
      'libs/a/src/y.ts',
      'libs/b/src/x.ts',
      'libs/b/src/y.ts',
    ]);
  });
});

describe('missingPaths', () => {
  it('names each doc, line and path that matches nothing, and any link out of the repository', () => {
    const index = fileIndex(['docs/deploy.md', 'tools/lint/folder-cycles.ts']);
    const docs = [
      { doc: 'docs/platform/walls.md', text: 'Runs `tools/lint/folder-cycles.ts`\nand `tools/lint/cycles.ts`.' },
      { doc: 'README.md', text: 'See [deploy](docs/deploy.md) and [old](docs/old.md#top), [up](../x.md).' },
    ];
    expect(missingPaths(docs, index)).toEqual([
      'docs/platform/walls.md:2: tools/lint/cycles.ts',
      'README.md:1: docs/old.md#top (docs/old.md)',
      'README.md:1: ../x.md',
    ]);
  });
});
