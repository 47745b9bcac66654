import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// Comments and public text point to the repository's own docs (docs/…), never to section numbers
// of documents outside it ("interface 2.3", "decisions.md §7", "issue 4 item 2").
const root = join(__dirname, '..', '..');
const OUTSIDE = /\binterface(?:\.md)? §?\d+\.\d+|decisions(?:\.md)? §\d+|\bissue \d+ (?:item|§)/;

describe('references to documents outside the repository', () => {
  it('appear in no source, proto or test file', () => {
    const files = execFileSync('git', ['ls-files', '*.ts', '*.proto'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .filter((f) => f && !f.startsWith('libs/contracts/src/gen/') && f !== 'libs/api-client/src/schema.ts')
      .filter((f) => f !== 'tools/lint/references.spec.ts');
    const hits = files.flatMap((f) =>
      readFileSync(join(root, f), 'utf8')
        .split('\n')
        .flatMap((line, i) => (OUTSIDE.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(hits).toEqual([]);
  });
});
