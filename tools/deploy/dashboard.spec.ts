import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAppFacts } from './apps';
import { format } from './checks';
import {
  DATASOURCE_UID,
  METRIC_PREFIX,
  checkCoverage,
  checkDashboard,
  checkDashboardConfigMaps,
  checkPodMonitor,
  scrapeLabels,
  seriesOf,
} from './dashboard';
import { REGISTERING_FILES, type RegisteredMetric, filesRegisteringMetrics, registeredMetrics } from './metrics';
import { type ConfigMap, type K8sObject, clone } from './objects';
import { ROOT, renderKustomization, renderOverlay } from './render';
import { validateSchemas } from './schemas';

// The dashboards (deploy/grafana/*.json) against the metrics the apps' code registers (each metrics
// module run against a registry: tools/deploy/metrics.ts) and the labels the PodMonitor of
// deploy/k8s/monitoring adds; then what ships them (kustomize build deploy/k8s/monitoring).
// Negative tests feed mutated copies.
const GRAFANA = join(ROOT, 'deploy', 'grafana');
const files = Object.fromEntries(
  readdirSync(GRAFANA)
    .filter((f) => f.endsWith('.json'))
    .map((f) => [f, readFileSync(join(GRAFANA, f), 'utf8')]),
);
const FILE = 'pim-platform.json';

let metrics: Map<string, RegisteredMetric>;
let monitoring: K8sObject[];
let prod: K8sObject[];
let facts: { series: Map<string, string[]>; scrape: string[] };

beforeAll(async () => {
  const apps = await loadAppFacts();
  [metrics, monitoring, prod] = await Promise.all([
    registeredMetrics(apps.map((a) => a.name)),
    renderKustomization('deploy/k8s/monitoring'),
    renderOverlay('prod'),
  ]);
  facts = { series: seriesOf(metrics), scrape: scrapeLabels(podMonitor(monitoring)) };
});

const podMonitor = (objects: K8sObject[]) => objects.find((o) => o.kind === 'PodMonitor')!;
interface Panel {
  id: number;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  datasource?: { uid: string };
  targets?: { expr: string; legendFormat?: string }[];
}
const dashboard = () => clone(JSON.parse(files[FILE]) as { panels: Panel[] });
const panel = (d: { panels: Panel[] }, title: string) => d.panels.find((p) => p.title === title)!;
const check = (d: unknown) => format(checkDashboard(d, FILE, facts));

describe('the metrics the apps register', () => {
  it('are read from every module that creates metrics', () => {
    expect(filesRegisteringMetrics()).toEqual(REGISTERING_FILES);
  });

  it(`all carry the prefix ${METRIC_PREFIX}, and include the default process metrics of every app`, () => {
    expect([...metrics.keys()].filter((n) => !n.startsWith(METRIC_PREFIX))).toEqual([]);
    expect(metrics.get('pim_io_jobs_process_cpu_seconds_total')?.process).toBe(true);
    expect(metrics.get('pim_http_requests_total')).toEqual({
      name: 'pim_http_requests_total',
      type: 'counter',
      labels: ['method', 'route', 'status'],
      process: false,
    });
  });
});

describe.each(Object.keys(files))('deploy/grafana/%s', (file) => {
  it('parses, lays out its panels on the grid, and queries only what the apps register and scraping labels', () => {
    expect(format(checkDashboard(JSON.parse(files[file]), file, facts))).toEqual([]);
  });
});

describe('the dashboards together', () => {
  it('show every metric the apps register, or say why not (LEFT_OFF)', () => {
    expect(
      format(
        checkCoverage(
          Object.values(files).map((t) => JSON.parse(t)),
          metrics,
        ),
      ),
    ).toEqual([]);
  });

  it('a new metric nobody considered fails', () => {
    const more = new Map(metrics).set('pim_catalog_things_total', {
      name: 'pim_catalog_things_total',
      type: 'counter',
      labels: [],
      process: false,
    });
    expect(format(checkCoverage([JSON.parse(files[FILE])], more))).toEqual([
      'pim_catalog_things_total: is on no dashboard: show it, or add it to LEFT_OFF with the reason',
    ]);
  });
});

describe('a broken dashboard fails the check', () => {
  it('a metric the code does not register, and a histogram queried without its suffix', () => {
    const d = dashboard();
    const t = panel(d, 'Requests/s by route').targets![0];
    t.expr = t.expr.replace('pim_http_requests_total', 'pim_http_request_total');
    const p = panel(d, 'p95 latency by route').targets![0];
    p.expr = p.expr.replace('pim_http_request_duration_seconds_bucket', 'pim_http_request_duration_seconds');
    expect(check(d)).toEqual([
      `${FILE}: panel 9 "Requests/s by route" query A: pim_http_request_total is not a metric the apps register`,
      `${FILE}: panel 15 "p95 latency by route" query A: pim_http_request_duration_seconds is a histogram: query pim_http_request_duration_seconds_bucket, pim_http_request_duration_seconds_sum or pim_http_request_duration_seconds_count`,
    ]);
  });

  it('a label the metric does not have, a legend and a grouping on it, and a name pattern that matches nothing', () => {
    const d = dashboard();
    const t = panel(d, '5xx/s by route and status').targets![0];
    t.expr = t.expr.replace('status=~"5.."', 'code=~"5.."');
    const g = panel(d, 'Calls/s by method').targets![0];
    g.expr = g.expr.replace('by (method)', 'by (route)');
    g.legendFormat = '{{route}}';
    const c = panel(d, 'CPU by pod').targets![0];
    c.expr = c.expr.replace('process_cpu_seconds_total', 'process_cpu_ticks_total');
    expect(check(d)).toEqual([
      `${FILE}: panel 12 "5xx/s by route and status" query A: pim_http_requests_total has no label code`,
      `${FILE}: panel 22 "Calls/s by method" query A: by (route): no metric of the query has the label route`,
      `${FILE}: panel 22 "Calls/s by method" query A: legend {{route}}: no metric of the query has the label route`,
      `${FILE}: panel 57 "CPU by pod" query A: __name__=~"pim_.+_process_cpu_ticks_total" matches no metric the apps register`,
    ]);
  });

  it('a query that forgets the namespace, a hard-wired data source, and an unknown variable', () => {
    const d = dashboard();
    const t = panel(d, 'Backlog by app').targets![0];
    t.expr = 'max by (app_kubernetes_io_name) (pim_outbox_backlog)';
    panel(d, 'Lag by app').datasource = { uid: 'P1809F7CD0C75ACF3' };
    const v = panel(d, 'Published/s by app').targets![0];
    v.expr = v.expr.replace('$namespace', '$cluster');
    expect(check(d)).toEqual([
      `${FILE}: panel 30 "Backlog by app" query A: pim_outbox_backlog is not filtered by namespace=~"$namespace"`,
      `${FILE}: panel 31 "Lag by app": does not read the data source ${DATASOURCE_UID}`,
      `${FILE}: panel 32 "Published/s by app" query A: pim_outbox_published_total is not filtered by namespace=~"$namespace"`,
      `${FILE}: panel 32 "Published/s by app" query A: uses $cluster, which is not a variable of the dashboard`,
    ]);
  });

  it('a duplicate id, a missing title, a panel past the 24 columns and one on top of another', () => {
    const d = dashboard();
    panel(d, 'Ack pending by durable').id = 35;
    panel(d, 'Pending by durable').title = '';
    const wide = panel(d, 'Heap used by pod');
    wide.gridPos = { ...wide.gridPos, x: 20 };
    expect(check(d)).toEqual([
      `${FILE}: panel 35 "": has no title`,
      `${FILE}: panel 35 "Ack pending by durable": has the id of panel 35 ""`,
      `${FILE}: panel 60 "Heap used by pod": gridPos {"h":8,"w":8,"x":20,"y":150} is not within the 24 columns`,
      `${FILE}: panel 62 "Open file descriptors by pod": overlaps panel 60 "Heap used by pod"`,
    ]);
  });

  it('a scrape that does not add the app label fails every query on it', () => {
    const pm = clone(podMonitor(monitoring));
    delete (pm.spec as { podTargetLabels?: string[] }).podTargetLabels;
    const problems = format(checkDashboard(JSON.parse(files[FILE]), FILE, { ...facts, scrape: scrapeLabels(pm) }));
    expect(problems).toContain(
      `${FILE}: variable app: label_values(…, app_kubernetes_io_name): no metric of the query has the label app_kubernetes_io_name`,
    );
    expect(problems).toContain(
      `${FILE}: panel 2 "Pods answering scrapes" query A: up has no label app_kubernetes_io_name`,
    );
  });
});

describe('deploy/k8s/monitoring', () => {
  const sidecarMap = (objects: K8sObject[]) => objects.find((o): o is ConfigMap => o.kind === 'ConfigMap')!;

  it('ships each dashboard as it is, in a ConfigMap for Grafana’s sidecar that validates', async () => {
    expect(format(checkDashboardConfigMaps(monitoring, files))).toEqual([]);
    expect(await validateSchemas([sidecarMap(monitoring)])).toEqual([]);
  });

  it('scrapes every app’s pods on their metrics port, and no migration Job', () => {
    expect(format(checkPodMonitor(monitoring, prod))).toEqual([]);
  });

  it('a stale dashboard, a ConfigMap the sidecar ignores, a PodMonitor that misses an app or takes a Job', () => {
    const objects = clone(monitoring);
    sidecarMap(objects).data![FILE] = '{}';
    expect(format(checkDashboardConfigMaps(objects, files))).toEqual([
      `ConfigMap/pim-platform-dashboard: ${FILE} differs from deploy/grafana/${FILE}`,
    ]);
    delete sidecarMap(objects).metadata.labels!.grafana_dashboard;
    expect(format(checkDashboardConfigMaps(objects, files))).toEqual([
      `${FILE}: is in 0 ConfigMaps labelled {"grafana_dashboard":"1"}, not 1`,
    ]);
    const spec = podMonitor(objects).spec as {
      selector: { matchLabels: Record<string, string>; matchExpressions: { values: string[] }[] };
    };
    spec.selector.matchExpressions[0].values = spec.selector.matchExpressions[0].values.filter((a) => a !== 'orders');
    expect(format(checkPodMonitor(objects, prod))).toEqual([
      'PodMonitor/pim-platform: does not select the pods of Deployment/orders (namespace pim)',
    ]);
    spec.selector.matchExpressions = [];
    spec.selector.matchLabels = {};
    expect(format(checkPodMonitor(objects, prod))).toContain(
      'PodMonitor/pim-platform: selects the pods of Job/catalog-migrate, which serve no metrics',
    );
  });
});
