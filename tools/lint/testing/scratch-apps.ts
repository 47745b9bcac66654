import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A scratch apps/ folder with the given files (path → source), for the walls' rules to read; the caller removes it. */
export function scratchApps(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'pim-walls-'));
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), source);
  }
  return dir;
}
