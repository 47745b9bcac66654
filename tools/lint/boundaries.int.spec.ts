import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

// The module-boundary rule is part of `npm test`'s lint; this proves it actually refuses the
// arrows the architecture forbids (and allows the ones it permits).
const root = join(__dirname, '..', '..');

function lint(file: string, source: string): { ok: boolean; output: string } {
  const r = spawnSync(
    process.execPath,
    [join(root, 'node_modules/eslint/bin/eslint.js'), '--stdin', '--stdin-filename', file, '--format', 'stylish'],
    {
      cwd: root,
      input: source,
      encoding: 'utf8',
      env: { ...process.env, NX_DAEMON: 'false' },
    },
  );
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}` };
}

describe('module boundaries', () => {
  // The rule reads Nx's cached project graph and silently skips itself without one.
  beforeAll(() => {
    const r = spawnSync(join(root, 'node_modules/.bin/nx'), ['show', 'projects'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, NX_DAEMON: 'false' },
    });
    expect(r.status).toBe(0);
  });

  it('refuses an app importing another app', () => {
    const r = lint('apps/webhooks/src/sneaky.ts', "import '@pim/gateway-app';\n");
    expect(r.ok).toBe(false);
    expect(r.output).toContain('@nx/enforce-module-boundaries');
  });

  it('refuses runtime lib code importing the testing lib', () => {
    const r = lint(
      'libs/errors/src/sneaky.ts',
      "import { createTestDatabase } from '@pim/testing';\nexport const f = createTestDatabase;\n",
    );
    expect(r.ok).toBe(false);
    expect(r.output).toContain('@nx/enforce-module-boundaries');
  });

  it('refuses contracts importing anything of ours', () => {
    const r = lint('libs/contracts/src/sneaky.ts', "import { newId } from '@pim/ids';\nexport const f = newId;\n");
    expect(r.ok).toBe(false);
    expect(r.output).toContain('@nx/enforce-module-boundaries');
  });

  it('allows an app to use libs, and tests to use the testing lib', () => {
    expect(lint('apps/webhooks/src/fine.ts', "import { newId } from '@pim/ids';\nexport const f = newId;\n").ok).toBe(
      true,
    );
    expect(
      lint(
        'libs/errors/src/fine.int.spec.ts',
        "import { createTestDatabase } from '@pim/testing';\nexport const f = createTestDatabase;\n",
      ).ok,
    ).toBe(true);
  });
});
