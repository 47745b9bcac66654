import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { buildApiDocument } from '../app';
import { gatewayTestContext, type GatewayTestContext } from '../testing/gateway.context';

const root = resolve(__dirname, '..', '..', '..', '..');

interface Finding {
  code: string;
  message: string;
  path: string[];
  severity: number;
  source?: string;
}

/** The spectral CLI's entry script, run by this Node (no global binary). */
function spectralCli(): string {
  const pkgPath = require.resolve('@stoplight/spectral-cli/package.json', { paths: [root] });
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { bin: Record<string, string> };
  return join(dirname(pkgPath), pkg.bin.spectral);
}

/** Lints files with the repository's .spectral.yaml (spectral:oas + OWASP) in one run. */
function lint(files: string[]): Finding[] {
  const run = spawnSync(
    process.execPath,
    [spectralCli(), 'lint', ...files, '--ruleset', join(root, '.spectral.yaml'), '--format', 'json', '--quiet'],
    {
      cwd: root,
      encoding: 'utf8',
    },
  );
  const out = run.stdout.trim();
  if (!out.startsWith('[')) throw new Error(`spectral did not report (exit ${run.status}): ${run.stderr || out}`);
  return JSON.parse(out) as Finding[];
}

const ERROR = 0;

/**
 * The document with one path (the first) and every component: what the server- and header-level
 * rules judge, at a fraction of the lint time (spectral takes ~20 s per full document here). Every
 * path's own findings are judged once, on the served document.
 */
function onePath<T extends { paths?: Record<string, unknown> }>(doc: T): T {
  const [first] = Object.entries(doc.paths ?? {});
  return { ...doc, paths: first ? { [first[0]]: first[1] } : {} };
}
const describeFinding = (f: Finding) => `${f.code} at ${f.path.join('.')}: ${f.message}`;

// The document the gateway serves passes `spectral lint` with the OWASP
// API ruleset without errors. A document with the protections taken out must fail, which shows the
// rules really run.
describe('OpenAPI document: spectral with the OWASP ruleset', () => {
  let ctx: GatewayTestContext;
  let dir: string;
  let served: Record<string, unknown>;
  let findings: Finding[];
  const file = (name: string) => join(dir, name);

  beforeAll(async () => {
    ctx = await gatewayTestContext();
    dir = mkdtempSync(join(tmpdir(), 'pim-spectral-'));
    const res = await fetch(`${ctx.base}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    served = (await res.json()) as Record<string, unknown>;

    // What a production gateway (https PUBLIC_URL) serves (its paths are the served document's).
    const https = onePath(buildApiDocument({ publicUrl: 'https://pim.example.com' }));
    // The https deployment's document without rate-limit, CORS and Retry-After headers and with a plain-http server.
    const broken = JSON.parse(JSON.stringify(https)) as {
      servers: { url: string }[];
      components: { responses: Record<string, { headers?: Record<string, unknown> }> };
    };
    broken.servers[0].url = 'http://pim.example.com';
    for (const response of Object.values(broken.components.responses)) {
      if (!response.headers) continue;
      delete response.headers['RateLimit-Limit'];
      delete response.headers['Access-Control-Allow-Origin'];
      delete response.headers['Retry-After'];
    }
    writeFileSync(file('served.json'), JSON.stringify(served));
    writeFileSync(file('https.json'), JSON.stringify(https));
    writeFileSync(file('broken.json'), JSON.stringify(broken));
    findings = lint([file('served.json'), file('https.json'), file('broken.json')]);
  });

  afterAll(async () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    await ctx?.close();
  });

  const errorsIn = (name: string) => findings.filter((f) => f.severity === ERROR && f.source === file(name));

  it('finds no error in the served document but its plain-http server (a local gateway says what it is)', () => {
    expect(errorsIn('served.json').map(describeFinding)).toEqual([
      expect.stringMatching(/^owasp:api8:2023-no-server-http at servers\.0\.url/),
    ]);
  });

  it('finds no error in the document of an https deployment', () => {
    expect(errorsIn('https.json').map(describeFinding)).toEqual([]);
  });

  it('fails a document without rate-limit, CORS and Retry-After headers or with a plain-http server', () => {
    const codes = new Set(errorsIn('broken.json').map((f) => f.code));
    expect([...codes].sort()).toEqual(
      [
        'owasp:api4:2023-rate-limit',
        'owasp:api4:2023-rate-limit-retry-after',
        'owasp:api8:2023-define-cors-origin',
        'owasp:api8:2023-no-server-http',
      ].sort(),
    );
  });

  it('serves exactly the document the client is generated from (same routes and limits)', () => {
    expect(served).toEqual(buildApiDocument({ publicUrl: 'http://127.0.0.1', maxLimit: 100, defaultLimit: 25 }));
  });
});
