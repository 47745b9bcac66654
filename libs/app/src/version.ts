import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The version in the nearest package.json at or above `dir` (an app's `src/` → the app's package.json). */
export function packageVersion(dir: string): string {
  for (let d = dir; ; d = dirname(d)) {
    const file = join(d, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? '0.0.0';
    if (dirname(d) === d) return '0.0.0';
  }
}
