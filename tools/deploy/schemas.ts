import { execFile } from 'node:child_process';
import { join } from 'node:path';
import type { K8sObject, Problem } from './objects';

/** The Kubernetes version whose API schemas the objects are validated against (kubernetes-models 5.1.0). */
export const KUBERNETES_SCHEMA_VERSION = '1.36.0';

/**
 * Validates objects against the Kubernetes API schemas, offline and strict (unknown fields are
 * problems): validate-schemas.mjs in its own Node process, since the schema package is ESM only.
 * Same objects in, same problems out.
 */
export function validateSchemas(objects: K8sObject[]): Promise<Problem[]> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [join(__dirname, 'validate-schemas.mjs')],
      { maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`schema validation failed to run: ${stderr || err.message}`));
        else resolve(JSON.parse(stdout) as Problem[]);
      },
    );
    child.stdin?.end(JSON.stringify(objects));
  });
}
