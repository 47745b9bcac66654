import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** What deploy/Dockerfile declares that the manifests and the repository must agree with. */
export interface DockerfileFacts {
  /** The final stage's `USER` (`uid:gid`). */
  user: string | undefined;
  /** The final stage's ENTRYPOINT and CMD, as JSON arrays. */
  entrypoint: string[] | undefined;
  cmd: string[] | undefined;
  /** `ARG` defaults of every stage (NODE_VERSION, NPM_VERSION…). */
  args: Record<string, string>;
}

/** Instructions with their continuation lines joined, comments dropped. */
function instructions(text: string): string[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

/** Reads the facts of a Dockerfile's text (deploy/Dockerfile unless given). */
export function dockerfileFacts(text = readFileSync(join(ROOT, 'deploy', 'Dockerfile'), 'utf8')): DockerfileFacts {
  const facts: DockerfileFacts = { user: undefined, entrypoint: undefined, cmd: undefined, args: {} };
  for (const line of instructions(text)) {
    const [keyword, ...rest] = line.split(/\s+/);
    const value = rest.join(' ');
    switch (keyword.toUpperCase()) {
      case 'FROM':
        // Only the last stage's USER, ENTRYPOINT and CMD make the image.
        Object.assign(facts, { user: undefined, entrypoint: undefined, cmd: undefined });
        break;
      case 'USER':
        facts.user = value;
        break;
      case 'ENTRYPOINT':
        facts.entrypoint = JSON.parse(value) as string[];
        break;
      case 'CMD':
        facts.cmd = JSON.parse(value) as string[];
        break;
      case 'ARG': {
        const [name, def] = value.split('=', 2);
        if (def !== undefined) facts.args[name] = def;
        break;
      }
    }
  }
  return facts;
}

/** The version of the `node` dev dependency in package-lock.json: the Node the tests run on. */
export function lockedNodeVersion(): string | undefined {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string }>;
  };
  return lock.packages['node_modules/node']?.version;
}
