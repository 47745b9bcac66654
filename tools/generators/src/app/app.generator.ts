import { execFileSync } from 'node:child_process';
import { formatFiles, type GeneratorCallback, type Tree } from '@nx/devkit';
import * as files from './app.files';
import { appNames } from './names';

/** Options of `nx g @pim/generators:app`. */
export interface AppGeneratorOptions {
  name: string;
  port?: number;
  description?: string;
}

const START_APPS = 'tools/start/apps.ts';
const DRIFT = 'tools/db/drift.ts';
const PROTO_FILES = 'libs/contracts/src/proto-files.ts';
const CONTRACTS_INDEX = 'libs/contracts/src/index.ts';
const KUSTOMIZATION = 'deploy/k8s/base/kustomization.yaml';
const K8S_CONFIG = 'deploy/k8s/base/config.yaml';

/** A file's text, or a clear error naming the file the generator expected. */
function read(tree: Tree, path: string): string {
  const text = tree.read(path, 'utf-8');
  if (text === null) throw new Error(`${path} is missing; the app generator edits it`);
  return text;
}

/** Inserts `text` before the first match of `anchor` (which must be there). */
function insertBefore(tree: Tree, path: string, anchor: string | RegExp, text: string): void {
  const source = read(tree, path);
  const at = typeof anchor === 'string' ? source.indexOf(anchor) : source.search(anchor);
  if (at < 0) throw new Error(`${path}: cannot find where to add the app (${String(anchor)})`);
  tree.write(path, `${source.slice(0, at)}${text}${source.slice(at)}`);
}

/** The next free gRPC port after those of the apps `npm start` runs. */
function nextPort(tree: Tree): number {
  const ports = [...read(tree, START_APPS).matchAll(/kind: 'grpc',\s*port: (\d+)/g)].map((m) => Number(m[1]));
  return Math.max(50050, ...ports) + 1;
}

/**
 * A new app of the platform, whole: its proto package (and generated contracts), its schema with
 * the outbox, `main.ts` through the one bootstrap, a test that starts it, an entry in `npm start`
 * and in the drift check, Kubernetes manifests, and `docs/apps/<name>.md`. What it writes passes
 * `npm test` as it is; the app serves health until its first resource arrives.
 */
export default async function appGenerator(tree: Tree, options: AppGeneratorOptions): Promise<GeneratorCallback> {
  const names = appNames(options.name);
  const root = `apps/${names.name}`;
  if (tree.exists(`${root}/package.json`)) throw new Error(`${root} exists already`);
  const a: files.AppFacts = {
    ...names,
    port: options.port ?? nextPort(tree),
    description: options.description ?? 'Owns nothing yet: it serves health until its first resource arrives.',
    migrationTs: Date.now(),
  };

  tree.write(`${root}/package.json`, files.packageJson(a));
  tree.write(`${root}/src/config.ts`, files.configTs(a));
  tree.write(`${root}/src/data-source.ts`, files.dataSourceTs(a));
  tree.write(`${root}/src/app.ts`, files.appTs(a));
  tree.write(`${root}/src/main.ts`, files.mainTs(a));
  tree.write(`${root}/src/migrate.ts`, files.migrateTs(a));
  tree.write(`${root}/src/migrations/${a.migrationTs}-create-${a.name}-schema.ts`, files.firstMigrationTs(a));
  tree.write(`${root}/src/migrations/index.ts`, files.migrationsIndexTs(a));
  tree.write(`${root}/src/app.int.spec.ts`, files.appSpecTs(a));
  tree.write(`protos/pim/${a.proto}/v1/${a.proto}.proto`, files.protoFile(a));
  tree.write(`deploy/k8s/base/${a.name}.yaml`, files.k8sYaml(a));
  tree.write(`docs/apps/${a.name}.md`, files.appDoc(a));

  insertBefore(tree, PROTO_FILES, '} as const;', `  ${a.camel}: 'pim/${a.proto}/v1/${a.proto}.proto',\n`);
  insertBefore(
    tree,
    CONTRACTS_INDEX,
    /export \{[^}]*\} from '\.\/proto-files';/,
    `export * as ${a.camel} from './gen/pim/${a.proto}/v1/${a.proto}';\n`,
  );
  // gRPC apps start before the gateway; the new one goes last among them.
  // Its metrics port under npm start: the next after every app's (9464 and up).
  const metricsPort = 9464 + (tree.read(START_APPS, 'utf-8') ?? '').split('metrics: { env:').length - 1;
  insertBefore(
    tree,
    START_APPS,
    /\n\s*\{\s*name: 'gateway'/,
    `\n  {\n    name: '${a.name}',\n    kind: 'grpc',\n    port: ${a.port},\n    addressEnv: '${a.env}_GRPC_URL',\n    portEnv: '${a.env}_GRPC_PORT',\n    metrics: { env: '${a.env}_METRICS_PORT', port: ${metricsPort} },\n    migrate: true,\n  },`,
  );
  insertBefore(
    tree,
    DRIFT,
    /\n\/\*\* Apps that own a schema/,
    `\nimport { dataSourceOptions as ${a.camel} } from '../../apps/${a.name}/src/data-source';`,
  );
  insertBefore(tree, DRIFT, /\n\};\n/, `\n  ${a.camel},`);
  insertBefore(tree, KUSTOMIZATION, /\n\s*- gateway\.yaml/, `\n  - ${a.name}.yaml`);
  insertBefore(tree, K8S_CONFIG, /\n\s*CATALOG_GRPC_URL:/, `\n  ${a.env}_GRPC_URL: ${a.name}:${a.port}`);

  await formatFiles(tree);
  // The generated contracts come from buf and ts-proto, after the files above are on disk.
  return () => {
    execFileSync('npm', ['run', '--silent', 'proto:generate'], { cwd: tree.root, stdio: 'inherit' });
  };
}
