// Checks of the Grafana dashboards (deploy/grafana/*.json) and of what ships them to a cluster
// (deploy/k8s/monitoring): the layout Grafana needs, and every PromQL query against the metrics
// the apps' code registers (tools/deploy/metrics.ts) and the labels scraping adds. Pure, like
// checks.ts: a dashboard and facts in, problems out.
import type { RegisteredMetric } from './metrics';
import {
  type ConfigMap,
  type Deployment,
  type Job,
  type K8sObject,
  type Labels,
  type Problem,
  ofKind,
  ref,
} from './objects';

/** The prefix of every metric the apps register (the names a query is checked for). */
export const METRIC_PREFIX = 'pim_';
/** Grafana's grid is 24 columns wide. */
export const GRID_COLUMNS = 24;
/** Series Prometheus writes itself for every target it scrapes (labels: the target's). */
export const PROMETHEUS_SERIES: Record<string, string[]> = { up: [] };
/** Target labels the Prometheus operator puts on every series a PodMonitor scrapes. */
export const OPERATOR_TARGET_LABELS = ['job', 'instance', 'namespace', 'pod', 'container', 'endpoint'];
/** The data source every panel reads: the dashboard's variable, so an import picks its own. */
export const DATASOURCE_UID = '${datasource}';
/** The label of the ConfigMaps Grafana's dashboard sidecar loads, and its value. */
export const SIDECAR_LABEL: Labels = { grafana_dashboard: '1' };
/** The most a `kubectl apply` (client side) keeps in its last-applied annotation: 256 KiB. */
export const APPLY_ANNOTATION_MAX = 262_144;

/** Builtin Grafana variables (`$__rate_interval`, `$__range`…). */
const isBuiltin = (name: string) => name.startsWith('__');

interface GridPos {
  x: number;
  y: number;
  w: number;
  h: number;
}
interface Target {
  expr?: unknown;
  refId?: unknown;
  legendFormat?: unknown;
  datasource?: { uid?: unknown };
}
interface Panel {
  id?: unknown;
  type?: unknown;
  title?: unknown;
  gridPos?: Partial<GridPos>;
  datasource?: { type?: unknown; uid?: unknown };
  targets?: Target[];
  panels?: Panel[];
}
interface Variable {
  name?: unknown;
  type?: unknown;
  query?: unknown;
  datasource?: { uid?: unknown };
}
interface Dashboard {
  title?: unknown;
  uid?: unknown;
  schemaVersion?: unknown;
  panels?: Panel[];
  templating?: { list?: Variable[] };
}

/** Series names a registry exposes, each with its labels: a histogram is its _bucket, _sum and _count. */
export function seriesOf(metrics: Map<string, RegisteredMetric>): Map<string, string[]> {
  const series = new Map<string, string[]>(Object.entries(PROMETHEUS_SERIES));
  for (const m of metrics.values()) {
    if (m.type === 'histogram') {
      series.set(`${m.name}_bucket`, [...m.labels, 'le']);
      series.set(`${m.name}_sum`, m.labels);
      series.set(`${m.name}_count`, m.labels);
    } else if (m.type === 'summary') {
      series.set(m.name, [...m.labels, 'quantile']);
      series.set(`${m.name}_sum`, m.labels);
      series.set(`${m.name}_count`, m.labels);
    } else series.set(m.name, m.labels);
  }
  return series;
}

/** A pod label as the Prometheus operator writes it on series (`app.kubernetes.io/name` → `app_kubernetes_io_name`). */
const sanitize = (label: string) => label.replace(/[^a-zA-Z0-9_]/g, '_');

/** The labels a PodMonitor puts on every series it scrapes: the operator's target labels and its podTargetLabels. */
export function scrapeLabels(podMonitor: K8sObject): string[] {
  const spec = (podMonitor.spec ?? {}) as { podTargetLabels?: string[] };
  return [...OPERATOR_TARGET_LABELS, ...(spec.podTargetLabels ?? []).map(sanitize)];
}

/** What one PromQL expression refers to. */
export interface PromRefs {
  /** Each selector (`name{…}`, `{__name__=~"…"}`, or a bare name): the metric, or a regex of names, and the labels it matches on. */
  selectors: { name?: string; nameRegex?: string; matchers: { label: string; value: string }[] }[];
  /** Labels named by `by`, `without`, `on`, `ignoring`, `group_left`, `group_right`. */
  grouping: string[];
}

/**
 * The metric names, matchers and grouping labels of a PromQL expression, read lexically: strings
 * are set aside first (so label values never look like names), Grafana variables outside strings
 * are blanked, then selectors and grouping clauses are matched. Enough for the dashboards' queries;
 * not a PromQL parser.
 */
export function promqlRefs(expr: string): PromRefs {
  const strings: string[] = [];
  let text = expr.replace(/"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|`([^`]*)`/g, (_m, d, s, b) => {
    strings.push(d ?? s ?? b);
    return `"${strings.length - 1}"`;
  });
  text = text.replace(/\$\{?\w+(?::\w+)?\}?/g, 'VAR');
  const selectors: PromRefs['selectors'] = [];
  const inSelector = new Set<number>();
  for (const m of text.matchAll(/([A-Za-z_:][\w:]*)?\s*\{([^{}]*)\}/g)) {
    const matchers = [...m[2].matchAll(/([A-Za-z_]\w*)\s*(=~|!~|!=|=)\s*"(\d+)"/g)].map((x) => ({
      label: x[1],
      op: x[2],
      value: strings[Number(x[3])],
    }));
    const byName = matchers.find((x) => x.label === '__name__');
    selectors.push({
      name: m[1] ?? (byName?.op === '=' ? byName.value : undefined),
      nameRegex: !m[1] && byName?.op === '=~' ? byName.value : undefined,
      matchers: matchers.filter((x) => x.label !== '__name__').map(({ label, value }) => ({ label, value })),
    });
    if (m[1]) inSelector.add(m.index);
  }
  // Bare names of our metrics (no braces): `rate(pim_x_total[5m])`, `label_values(pim_x, label)`.
  for (const m of text.matchAll(new RegExp(`(?<![\\w:])${METRIC_PREFIX}[\\w:]*`, 'g'))) {
    if (!inSelector.has(m.index) && !/^\s*\{/.test(text.slice(m.index + m[0].length)))
      selectors.push({ name: m[0], matchers: [] });
  }
  const grouping = [...text.matchAll(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^()]*)\)/g)].flatMap(
    (m) =>
      m[1]
        .split(',')
        .map((l) => l.trim())
        .filter(Boolean),
  );
  return { selectors, grouping };
}

/** Every panel, those inside collapsed rows too. */
function allPanels(dashboard: Dashboard): Panel[] {
  return (dashboard.panels ?? []).flatMap((p) => [p, ...(p.panels ?? [])]);
}

const panelRef = (p: Panel) => `panel ${String(p.id)} "${String(p.title ?? '')}"`;

/** A variable's PromQL: its query, a string or `{ query }`. */
function variableQuery(v: Variable): string | undefined {
  if (typeof v.query === 'string') return v.query;
  const q = (v.query as { query?: unknown } | undefined)?.query;
  return typeof q === 'string' ? q : undefined;
}

/** What a query must agree with. */
export interface QueryFacts {
  /** Series the apps expose (seriesOf), with their labels. */
  series: Map<string, string[]>;
  /** Labels scraping adds to every series (scrapeLabels). */
  scrape: string[];
  /** The dashboard's variables. */
  variables: string[];
}

/**
 * One PromQL expression: each metric it names is a series the apps expose (a histogram through its
 * _bucket, _sum or _count), each `__name__` regex matches one; every label it matches, groups by
 * or shows in the legend is one of those series' or one scraping adds; every variable exists. In a
 * panel (`filtered`), each selector filters on the dashboard's namespace.
 */
export function checkQuery(
  where: string,
  expr: string,
  facts: QueryFacts,
  extra: { legend?: string; label?: string; filtered?: boolean } = {},
): Problem[] {
  const problems: Problem[] = [];
  const refs = promqlRefs(expr);
  const used = new Set<string>(['__name__']);
  let unknown = refs.selectors.length === 0;
  for (const s of refs.selectors) {
    let names: string[] = [];
    if (s.nameRegex !== undefined) {
      let re: RegExp | undefined;
      try {
        re = new RegExp(`^(?:${s.nameRegex})$`);
      } catch {
        problems.push({ where, message: `__name__=~"${s.nameRegex}" is not a valid regular expression` });
      }
      names = re ? [...facts.series.keys()].filter((n) => re.test(n)) : [];
      if (re && names.length === 0)
        problems.push({ where, message: `__name__=~"${s.nameRegex}" matches no metric the apps register` });
    } else if (s.name !== undefined) {
      const name = s.name;
      if (facts.series.has(name)) names = [name];
      else if (facts.series.has(`${name}_bucket`))
        problems.push({ where, message: `${name} is a histogram: query ${name}_bucket, ${name}_sum or ${name}_count` });
      else problems.push({ where, message: `${name} is not a metric the apps register` });
    }
    if (s.name === undefined && s.nameRegex === undefined)
      problems.push({ where, message: 'a selector names no metric (a name, or __name__)' });
    if (names.length === 0) unknown = true;
    const labels = new Set([...facts.scrape, ...names.flatMap((n) => facts.series.get(n) ?? [])]);
    labels.forEach((l) => used.add(l));
    if (names.length > 0) {
      for (const m of s.matchers) {
        if (!labels.has(m.label)) problems.push({ where, message: `${s.name ?? s.nameRegex} has no label ${m.label}` });
      }
    }
    if (extra.filtered && (s.name !== undefined || s.nameRegex !== undefined)) {
      const ns = s.matchers.find((m) => m.label === 'namespace');
      if (!ns?.value.includes('$namespace'))
        problems.push({ where, message: `${s.name ?? s.nameRegex} is not filtered by namespace=~"$namespace"` });
    }
  }
  const shown = [
    ...refs.grouping.map((l) => [l, `by (${l})`]),
    ...[...(extra.legend ?? '').matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => [m[1], `legend {{${m[1]}}}`]),
    ...(extra.label ? [[extra.label, `label_values(…, ${extra.label})`]] : []),
  ];
  for (const [label, how] of shown) {
    if (!unknown && !used.has(label))
      problems.push({ where, message: `${how}: no metric of the query has the label ${label}` });
  }
  for (const m of [expr, extra.legend ?? ''].join(' ').matchAll(/\$\{?(\w+)/g)) {
    if (!isBuiltin(m[1]) && !facts.variables.includes(m[1]))
      problems.push({ where, message: `uses $${m[1]}, which is not a variable of the dashboard` });
  }
  return problems;
}

/**
 * A dashboard: a title and uid; a `datasource` variable of Prometheus data sources that every
 * panel, target and query variable reads; each panel with a unique id, a title, a place inside the
 * 24 columns that no other panel takes; each target with a query, a unique refId; and every query
 * checked (checkQuery).
 */
export function checkDashboard(
  raw: unknown,
  file: string,
  facts: Omit<QueryFacts, 'variables'>,
  width: number = GRID_COLUMNS,
): Problem[] {
  const d = (raw ?? {}) as Dashboard;
  const problems: Problem[] = [];
  const at = (what: string) => `${file}: ${what}`;
  if (typeof d.title !== 'string' || !d.title) problems.push({ where: file, message: 'has no title' });
  if (typeof d.uid !== 'string' || !/^[\w-]{1,40}$/.test(d.uid))
    problems.push({ where: file, message: 'has no uid (40 letters, digits, - or _ at most)' });
  if (typeof d.schemaVersion !== 'number') problems.push({ where: file, message: 'has no schemaVersion' });
  if (!Array.isArray(d.panels) || d.panels.length === 0) problems.push({ where: file, message: 'has no panels' });

  const variables = d.templating?.list ?? [];
  const names = variables.map((v) => String(v.name));
  const source = variables.find((v) => v.name === 'datasource');
  if (source?.type !== 'datasource' || source.query !== 'prometheus')
    problems.push({ where: file, message: 'has no variable datasource of type datasource, query prometheus' });
  const queryFacts: QueryFacts = { ...facts, variables: names };
  for (const v of variables) {
    const where = at(`variable ${String(v.name)}`);
    if (names.filter((n) => n === v.name).length > 1) problems.push({ where, message: 'is defined twice' });
    if (v.type !== 'query') continue;
    if (v.datasource?.uid !== DATASOURCE_UID)
      problems.push({ where, message: `does not read the data source ${DATASOURCE_UID}` });
    const query = variableQuery(v) ?? '';
    const values = /^\s*label_values\(\s*(.*?)\s*,\s*(\w+)\s*\)\s*$/s.exec(query);
    if (!values) problems.push({ where, message: `query ${query} is not label_values(<metric>, <label>)` });
    else problems.push(...checkQuery(where, values[1], queryFacts, { label: values[2] }));
  }

  const panels = allPanels(d);
  const ids = new Map<unknown, Panel>();
  for (const p of panels) {
    const where = at(panelRef(p));
    if (typeof p.id !== 'number' || !Number.isInteger(p.id)) problems.push({ where, message: 'has no integer id' });
    else if (ids.has(p.id)) problems.push({ where, message: `has the id of ${panelRef(ids.get(p.id) as Panel)}` });
    else ids.set(p.id, p);
    if (typeof p.title !== 'string' || !p.title.trim()) problems.push({ where, message: 'has no title' });
    const g = p.gridPos ?? {};
    const ints = [g.x, g.y, g.w, g.h].every((n) => Number.isInteger(n));
    if (!ints || g.x! < 0 || g.y! < 0 || g.w! < 1 || g.h! < 1 || g.x! + g.w! > width) {
      problems.push({ where, message: `gridPos ${JSON.stringify(p.gridPos)} is not within the ${width} columns` });
    }
    if (p.type === 'row') continue;
    if (p.datasource?.uid !== DATASOURCE_UID)
      problems.push({ where, message: `does not read the data source ${DATASOURCE_UID}` });
    const targets = p.targets ?? [];
    if (targets.length === 0) problems.push({ where, message: 'has no query' });
    const refIds = new Set<unknown>();
    for (const t of targets) {
      const tw = at(`${panelRef(p)} query ${String(t.refId)}`);
      if (refIds.has(t.refId)) problems.push({ where: tw, message: 'refId is used twice in the panel' });
      refIds.add(t.refId);
      if (t.datasource && t.datasource.uid !== DATASOURCE_UID)
        problems.push({ where: tw, message: `does not read the data source ${DATASOURCE_UID}` });
      if (typeof t.expr !== 'string' || !t.expr.trim()) {
        problems.push({ where: tw, message: 'has no expression' });
        continue;
      }
      const legend = typeof t.legendFormat === 'string' ? t.legendFormat : undefined;
      problems.push(...checkQuery(tw, t.expr, queryFacts, { legend, filtered: true }));
    }
  }
  // Panels of the open layout (rows and the panels between them) never overlap.
  const top = (d.panels ?? []).filter((p) =>
    [p.gridPos?.x, p.gridPos?.y, p.gridPos?.w, p.gridPos?.h].every(Number.isInteger),
  );
  top.forEach((a, i) => {
    for (const b of top.slice(i + 1)) {
      const [p, q] = [a.gridPos as GridPos, b.gridPos as GridPos];
      if (p.x < q.x + q.w && q.x < p.x + p.w && p.y < q.y + q.h && q.y < p.y + p.h)
        problems.push({ where: at(panelRef(b)), message: `overlaps ${panelRef(a)}` });
    }
  });
  return problems;
}

/**
 * What ships the dashboards: ConfigMaps labelled for Grafana's sidecar, one holding each dashboard
 * file exactly as it is in the repository, small enough for `kubectl apply`.
 */
export function checkDashboardConfigMaps(objects: K8sObject[], files: Record<string, string>): Problem[] {
  const problems: Problem[] = [];
  const labelled = ofKind<ConfigMap>(objects, 'ConfigMap').filter((cm) =>
    Object.entries(SIDECAR_LABEL).every(([k, v]) => cm.metadata.labels?.[k] === v),
  );
  for (const [name, text] of Object.entries(files)) {
    const holders = labelled.filter((cm) => cm.data?.[name] !== undefined);
    if (holders.length !== 1) {
      problems.push({
        where: name,
        message: `is in ${holders.length} ConfigMaps labelled ${JSON.stringify(SIDECAR_LABEL)}, not 1`,
      });
    } else if (holders[0].data?.[name] !== text) {
      problems.push({ where: ref(holders[0]), message: `${name} differs from deploy/grafana/${name}` });
    }
  }
  for (const cm of labelled) {
    const size = Buffer.byteLength(JSON.stringify(cm));
    if (size > APPLY_ANNOTATION_MAX)
      problems.push({
        where: ref(cm),
        message: `${size} bytes: kubectl apply cannot keep it (${APPLY_ANNOTATION_MAX})`,
      });
  }
  return problems;
}

interface PodMonitorSpec {
  namespaceSelector?: { any?: boolean; matchNames?: string[] };
  selector?: { matchLabels?: Labels; matchExpressions?: { key: string; operator: string; values?: string[] }[] };
  podMetricsEndpoints?: { port?: string }[];
}

/** Whether a label selector (matchLabels and matchExpressions) selects these labels. */
function selectorSelects(selector: PodMonitorSpec['selector'], labels: Labels = {}): boolean {
  const byLabels = Object.entries(selector?.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  const byExpressions = (selector?.matchExpressions ?? []).every((e) => {
    const has = e.key in labels;
    if (e.operator === 'In') return has && (e.values ?? []).includes(labels[e.key]);
    if (e.operator === 'NotIn') return !has || !(e.values ?? []).includes(labels[e.key]);
    if (e.operator === 'Exists') return has;
    if (e.operator === 'DoesNotExist') return !has;
    return false;
  });
  return byLabels && byExpressions;
}

/**
 * The PodMonitor scrapes every app's pods (the rendered overlay's Deployments, in their namespace)
 * on their metrics port, and nothing else the overlay runs (the migration Jobs).
 */
export function checkPodMonitor(objects: K8sObject[], rendered: K8sObject[]): Problem[] {
  const monitors = objects.filter((o) => o.apiVersion === 'monitoring.coreos.com/v1' && o.kind === 'PodMonitor');
  if (monitors.length !== 1)
    return [{ where: 'monitoring', message: 'holds no single monitoring.coreos.com/v1 PodMonitor' }];
  const pm = monitors[0];
  const where = ref(pm);
  const spec = (pm.spec ?? {}) as PodMonitorSpec;
  const problems: Problem[] = [];
  for (const job of ofKind<Job>(rendered, 'Job')) {
    if (selectorSelects(spec.selector, job.spec.template.metadata?.labels))
      problems.push({ where, message: `selects the pods of ${ref(job)}, which serve no metrics` });
  }
  for (const w of ofKind<Deployment>(rendered, 'Deployment')) {
    const pod = w.spec.template;
    const selected = selectorSelects(spec.selector, pod.metadata?.labels);
    const namespace = w.metadata.namespace ?? 'default';
    const inNamespace =
      spec.namespaceSelector?.any === true || (spec.namespaceSelector?.matchNames ?? []).includes(namespace);
    if (!selected || !inNamespace)
      problems.push({ where, message: `does not select the pods of ${ref(w)} (namespace ${namespace})` });
    for (const e of spec.podMetricsEndpoints ?? []) {
      if (!pod.spec.containers.some((c) => (c.ports ?? []).some((p) => p.name === e.port)))
        problems.push({ where, message: `scrapes port ${e.port}, which ${ref(w)} does not name` });
    }
  }
  if ((spec.podMetricsEndpoints ?? []).length === 0) problems.push({ where, message: 'has no podMetricsEndpoints' });
  return problems;
}

/**
 * Metrics the apps register that no dashboard shows, each with the reason. Every other metric is
 * on a dashboard (the default process metrics aside: the dashboard shows a few of them).
 */
export const LEFT_OFF: Record<string, string> = {
  pim_webhooks_queue_seconds: 'the delivery queue’s own statements (claim, record): for tuning the queue',
  pim_webhooks_queue_batch_size: 'deliveries per claim or recorded batch: for tuning the queue',
};

/** The series the dashboards query (a `__name__` regex: each series it matches). */
function queried(dashboards: unknown[], series: Map<string, string[]>): Set<string> {
  const names = new Set<string>();
  const exprs = dashboards.flatMap((raw) => {
    const d = (raw ?? {}) as Dashboard;
    return [
      ...allPanels(d).flatMap((p) => (p.targets ?? []).map((t) => (typeof t.expr === 'string' ? t.expr : ''))),
      ...(d.templating?.list ?? []).map((v) => variableQuery(v) ?? ''),
    ];
  });
  for (const expr of exprs) {
    for (const s of promqlRefs(expr).selectors) {
      if (s.name) names.add(s.name);
      if (s.nameRegex !== undefined) {
        try {
          const re = new RegExp(`^(?:${s.nameRegex})$`);
          [...series.keys()].filter((n) => re.test(n)).forEach((n) => names.add(n));
        } catch {
          // checkDashboard names the bad regex
        }
      }
    }
  }
  return names;
}

/**
 * Every metric the apps register (but the process ones) is on a dashboard or in LEFT_OFF with the
 * reason, and nothing in LEFT_OFF is unknown or shown after all: a new metric is a decision about
 * the dashboard.
 */
export function checkCoverage(
  dashboards: unknown[],
  metrics: Map<string, RegisteredMetric>,
  leftOff: Record<string, string> = LEFT_OFF,
): Problem[] {
  const series = seriesOf(metrics);
  const shown = queried(dashboards, series);
  const family = (name: string) =>
    shown.has(name) || ['_bucket', '_sum', '_count'].some((suffix) => shown.has(`${name}${suffix}`));
  const problems: Problem[] = [];
  for (const m of metrics.values()) {
    if (m.process || m.name in leftOff || family(m.name)) continue;
    problems.push({ where: m.name, message: 'is on no dashboard: show it, or add it to LEFT_OFF with the reason' });
  }
  for (const name of Object.keys(leftOff)) {
    if (!metrics.has(name)) problems.push({ where: `LEFT_OFF.${name}`, message: 'is not a metric the apps register' });
    else if (family(name)) problems.push({ where: `LEFT_OFF.${name}`, message: 'is on a dashboard after all' });
  }
  return problems;
}
