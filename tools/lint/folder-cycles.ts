// The walls inside an app: its folders import one another in one direction only. This check reads
// every source file of every app (tests and test helpers aside), draws the graph of folder → folder
// imports (a file directly in src/ is a node of its own), and fails naming each cycle with one
// import that makes each of its edges. `npm run lint` runs it.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

/** One import between two nodes of an app: the file and the specifier that make the edge. */
export interface Edge {
  from: string;
  to: string;
  file: string;
  specifier: string;
}

/** A cycle of an app's folders, with one import for each edge around it. */
export interface Cycle {
  app: string;
  nodes: string[];
  edges: Edge[];
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g;

/** Test files and test helpers may import across the walls: they exercise the whole app. */
const isTest = (path: string) => /\.(int|e2e)?\.?spec\.ts$/.test(path) || path.split(sep).includes('testing');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !isTest(path) ? [path] : [];
  });
}

/** The node a file belongs to: its top folder under src/, or the file itself when it sits in src/. */
function nodeOf(src: string, file: string): string {
  const parts = relative(src, file).split(sep);
  return parts.length === 1 ? parts[0].replace(/\.ts$/, '') : `${parts[0]}/`;
}

/** The folder → folder imports of one app's src/ folder. */
export function folderEdges(src: string): Edge[] {
  const edges: Edge[] = [];
  for (const file of sourceFiles(src)) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(IMPORT)) {
      const specifier = m[1] ?? m[2];
      if (!specifier.startsWith('.')) continue;
      const target = resolve(file, '..', specifier);
      if (!target.startsWith(src + sep)) continue;
      const from = nodeOf(src, file);
      const to = nodeOf(
        src,
        existsSync(`${target}.ts`) || !existsSync(target) ? `${target}.ts` : join(target, 'index.ts'),
      );
      if (from !== to) edges.push({ from, to, file: relative(src, file), specifier });
    }
  }
  return edges;
}

/** The cycles of a graph: its strongly connected components of more than one node (Tarjan), each as a closed path. */
export function cyclesOf(edges: Edge[]): { nodes: string[]; edges: Edge[] }[] {
  const next = new Map<string, Map<string, Edge>>();
  for (const e of edges) {
    if (!next.has(e.from)) next.set(e.from, new Map());
    if (!next.get(e.from)!.has(e.to)) next.get(e.from)!.set(e.to, e);
  }
  const nodes = [...new Set(edges.flatMap((e) => [e.from, e.to]))].sort();
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let counter = 0;
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of [...(next.get(v)?.keys() ?? [])].sort()) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      for (let w = stack.pop()!; ; w = stack.pop()!) {
        onStack.delete(w);
        component.push(w);
        if (w === v) break;
      }
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const v of nodes) if (!index.has(v)) visit(v);
  // One closed path per component: from its first node, the shortest way back to it (breadth first).
  return components.map((component) => {
    const inside = new Set(component);
    const start = component[0];
    const parent = new Map<string, Edge>();
    const queue = [start];
    let closing: Edge | undefined;
    while (queue.length > 0 && !closing) {
      const v = queue.shift()!;
      for (const [w, e] of [...(next.get(v) ?? [])].sort(([a], [b]) => a.localeCompare(b))) {
        if (!inside.has(w)) continue;
        if (w === start) {
          closing = e;
          break;
        }
        if (!parent.has(w)) {
          parent.set(w, e);
          queue.push(w);
        }
      }
    }
    const path: Edge[] = [closing!];
    for (let v = closing!.from; v !== start; v = parent.get(v)!.from) path.unshift(parent.get(v)!);
    return { nodes: component, edges: path };
  });
}

/** The cycles of every app under `appsDir` (`apps/<app>/src`). */
export function appCycles(appsDir: string): Cycle[] {
  return readdirSync(appsDir)
    .filter((app) => existsSync(join(appsDir, app, 'src')))
    .flatMap((app) => cyclesOf(folderEdges(join(appsDir, app, 'src'))).map((c) => ({ app, ...c })));
}

/** A cycle in words: the folders around it and an import that makes each step. */
export function describeCycle(c: Cycle): string {
  const path = [...c.edges.map((e) => e.from), c.edges[0].from].join(' → ');
  const steps = c.edges.map((e) => `    ${e.from} → ${e.to}: ${e.file} imports '${e.specifier}'`).join('\n');
  const others = c.nodes.length > c.edges.length ? ` (folders caught in it: ${c.nodes.join(', ')})` : '';
  return `apps/${c.app}/src: ${path}${others}\n${steps}`;
}

if (require.main === module) {
  const cycles = appCycles(join(__dirname, '..', '..', 'apps'));
  if (cycles.length === 0) {
    console.log('folder cycles: none (every app imports its folders in one direction)');
  } else {
    console.error(
      `Folders of an app import each other in a circle. Move what both sides need into the lower folder (or a folder below both), or pass it in from the wiring; see docs/platform/walls.md.\n\n${cycles.map(describeCycle).join('\n\n')}`,
    );
    process.exit(1);
  }
}
