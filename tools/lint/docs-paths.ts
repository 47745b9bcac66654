// Every file and folder the docs name must exist: a doc that points at a moved or deleted path
// sends its reader nowhere. docs-paths.spec.ts (a unit test, so part of `npm test`) reads README.md
// and every Markdown file under docs/ and lists each path that matches nothing, with its doc and
// line. What counts as a path:
// - the target of a Markdown link, `[text](target)` or `[text]: target`, relative to the doc's
//   folder; a URL (`http…`, `mailto:`…) or an anchor alone (`#…`) is not a path, and a target's
//   own `#anchor` is dropped;
// - anywhere else (prose, code spans, code blocks), a word that starts with one of ROOTS and a
//   slash (`apps/gateway/src/main.ts`, `docs/deploy.md`, `.ci/run`), relative to the repository.
// A placeholder (`<app>`, `<name>`), `*`, `…` and `{a,b}` make a pattern, which must match at
// least one file or folder; `**` spans folders. A trailing slash asks for a folder.
import { posix } from 'node:path';

/** The repository's top folders whose paths the docs name in running text. */
export const ROOTS = ['apps', 'libs', 'docs', 'tools', 'test', 'deploy', 'protos', '.ci'];

/** One path a doc names: where, as written, and the repository-relative path or pattern it means. */
export interface DocPath {
  doc: string;
  line: number;
  written: string;
  path: string;
}

const LINK = /!?\[[^\]]*\]\(\s*<?([^()\s<>]+)>?(?:\s+"[^"]*")?\s*\)/g;
// A reference definition, `[name]: target`; not a footnote (`[^1]: text`).
const LINK_DEFINITION = /^\s{0,3}\[(?!\^)[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const ROOT_PATH = new RegExp(
  `(?<![\\w./@~:$-])(?:${ROOTS.map((r) => r.replace('.', '\\.')).join('|')})/(?:[\\w.*<>…/-]|\\{[^}\\s\`]*\\})*`,
  'g',
);

/** A link target with its %-escapes read (`a%20b.md`), or as written when they are malformed. */
function decoded(target: string): string {
  try {
    return decodeURI(target);
  } catch {
    return target;
  }
}

/** Trailing sentence punctuation is not part of a path (`see docs/deploy.md.`). */
const trimEnd = (word: string) => word.replace(/\.+$/, '');

/**
 * `kubectl … deploy/<name>` names a Deployment (kubectl's short form), not the deploy/ folder: in a
 * line that runs kubectl, `deploy/` followed by one plain name is left alone.
 */
const isKubectlDeployment = (line: string, word: string) => /\bkubectl\b/.test(line) && /^deploy\/[\w-]+$/.test(word);

/** The paths one doc names (`doc` is its repository-relative path; `text` its content). */
export function docPaths(doc: string, text: string): DocPath[] {
  const found: DocPath[] = [];
  const folder = posix.dirname(doc);
  text.split('\n').forEach((raw, i) => {
    const line = i + 1;
    const fromLink = (target: string): void => {
      if (target.startsWith('#') || SCHEME.test(target)) return;
      const bare = decoded(target.replace(/[#?].*$/, ''));
      if (bare === '') return;
      found.push({ doc, line, written: target, path: posix.normalize(posix.join(folder, bare)) });
    };
    // Link targets are relative to the doc: taken here, then blanked so the scan below skips them.
    const definition = LINK_DEFINITION.exec(raw);
    if (definition) fromLink(definition[1]);
    let rest = definition ? '' : raw;
    rest = rest.replace(LINK, (whole: string, target: string) => {
      fromLink(target);
      return whole.slice(0, whole.lastIndexOf('('));
    });
    for (const m of rest.matchAll(ROOT_PATH)) {
      const written = trimEnd(m[0]);
      if (isKubectlDeployment(raw, written)) continue;
      found.push({ doc, line, written, path: written });
    }
  });
  return found;
}

/** `{a,b}` alternatives expanded into the patterns they stand for. */
export function expandBraces(pattern: string): string[] {
  const m = /\{([^{}]*)\}/.exec(pattern);
  if (!m) return [pattern];
  const before = pattern.slice(0, m.index);
  const after = pattern.slice(m.index + m[0].length);
  return m[1].split(',').flatMap((alt) => expandBraces(`${before}${alt}${after}`));
}

const escape = (s: string) => s.replace(/[.+^$()|[\]\\]/g, '\\$&');

/** A pattern (no braces left) as a regular expression over repository-relative paths. */
function patternRegex(pattern: string): RegExp {
  let re = '';
  pattern.split('/').forEach((segment, i, all) => {
    if (segment === '**') {
      re += i === 0 ? '(?:[^/]+/)*' : '(?:/[^/]+)*';
      return;
    }
    const part = segment
      .split(/(<[^<>/]*>|\*|…|\.\.\.)/)
      .map((piece, j) => (j % 2 === 1 ? '[^/]*' : escape(piece)))
      .join('');
    re += i === 0 || (i === 1 && all[0] === '**') ? part : `/${part}`;
  });
  return new RegExp(`^${re}$`);
}

/** The repository's files and the folders that hold them. */
export interface FileIndex {
  files: Set<string>;
  folders: Set<string>;
}

/** An index of these repository-relative files (and every folder above them). */
export function fileIndex(files: Iterable<string>): FileIndex {
  const index: FileIndex = { files: new Set(), folders: new Set() };
  for (const file of files) {
    index.files.add(file);
    for (let dir = posix.dirname(file); dir !== '.' && !index.folders.has(dir); dir = posix.dirname(dir))
      index.folders.add(dir);
  }
  return index;
}

/** Whether a path or pattern names at least one file or folder of the index. */
export function exists(path: string, index: FileIndex): boolean {
  const wantsFolder = path.endsWith('/');
  const bare = path.replace(/\/+$/, '');
  if (bare === '' || bare === '.') return true;
  return expandBraces(bare).some((candidate) => {
    if (!/[*<…]|\.\.\./.test(candidate))
      return index.folders.has(candidate) || (!wantsFolder && index.files.has(candidate));
    const re = patternRegex(candidate);
    for (const folder of index.folders) if (re.test(folder)) return true;
    if (!wantsFolder) for (const file of index.files) if (re.test(file)) return true;
    return false;
  });
}

/** The named paths that match nothing, as `doc:line: written` lines. */
export function missingPaths(docs: { doc: string; text: string }[], index: FileIndex): string[] {
  return docs.flatMap(({ doc, text }) =>
    docPaths(doc, text)
      .filter((p) => p.path.startsWith('../') || !exists(p.path, index))
      .map((p) => `${p.doc}:${p.line}: ${p.written}${p.written === p.path ? '' : ` (${p.path})`}`),
  );
}
