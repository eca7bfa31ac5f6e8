/**
 * The KPI page (issue 15; served at /platform/kpis by functions/kpis-page.ts): the tenant's KPIs with
 * their latest value, a sparkline and a quiet mark (`GET /kpis?include=activity`), and one KPI's chart
 * of actual against target and forecast with its measurements and the keys that pushed them
 * (`GET /kpis/{id}`, `GET /api-keys` for the key names). Sign-in, session and navigation are shared
 * with the key page (web/shared/shell.ts). Routes: `?type=<KpiType>` filters the list, `?kpi=<id>`
 * shows one KPI; both survive a reload and work with Back.
 */
import uPlot from 'uplot';
import { KPI_TYPES, type KpiType } from '../lib/domain';
import {
  announce,
  api,
  byId,
  describe,
  el,
  SessionEnded,
  showText,
  startPage,
  timeCell,
} from './shared/shell';

interface Point {
  periodStart: string;
  periodEnd: string;
  actual: number;
  target: number | null;
  forecast: number | null;
}

interface Measurement extends Point {
  id: string;
  receivedAt: string | null;
  apiKeyId: string | null;
  apiKeyPrefix: string | null;
}

interface Kpi {
  id: string;
  type: KpiType;
  name: string;
  unit?: string;
}

interface KpiWithActivity extends Kpi {
  activity: {
    latest: Measurement | null;
    recent: Point[];
    lastReceivedAt: string | null;
    usualIntervalDays: number | null;
    quiet: boolean;
  };
}

interface KeySummary {
  id: string;
  name: string;
  prefix: string;
  status: string;
}

interface Page<T> {
  items: T[];
  nextCursor?: string;
}

/** Spec 2.6: what each KPI type stands for. */
const TYPE_LABELS: Record<KpiType, string> = {
  SWOT_KPI: 'SWOT analysis',
  PESTLE_KPI: 'PESTLE analysis',
  THEME_KPI: 'Strategic theme',
  KPI_DEFINITION: 'KPI definition',
  BSC_KPI: 'Balanced scorecard',
  ASIS_KPI: 'As-is analysis',
  OKR_KEY_RESULT: 'OKR key result',
  PRODUCT_SCORECARD_KPI: 'Product scorecard',
};

/** Series colors: each has at least 3:1 contrast on white (WCAG 1.4.11), and its own dash pattern. */
const COLORS = { actual: '#0b5cad', target: '#1a7f37', forecast: '#8250df' } as const;
const DAY_MS = 86_400_000;
/** The largest page `GET /kpis/{id}` gives: most KPIs arrive in one request. */
const DETAIL_PAGE = 1000;

const ui = {
  list: byId('list'),
  listTitle: byId('list-title'),
  typeFilter: byId<HTMLSelectElement>('type-filter'),
  listSummary: byId('list-summary'),
  listError: byId('list-error'),
  listEmpty: byId('list-empty'),
  table: byId<HTMLTableElement>('kpi-table'),
  body: byId<HTMLTableSectionElement>('kpi-body'),
  more: byId<HTMLButtonElement>('list-more'),
  detail: byId('detail'),
  back: byId<HTMLAnchorElement>('back'),
  detailTitle: byId('detail-title'),
  detailMeta: byId('detail-meta'),
  detailError: byId('detail-error'),
  detailEmpty: byId('detail-empty'),
  figure: byId('chart-figure'),
  chart: byId('chart'),
  readout: byId('chart-readout'),
  measurementTable: byId<HTMLTableElement>('measurement-table'),
  measurementBody: byId<HTMLTableSectionElement>('measurement-body'),
};

// ---------------------------------------------------------------------------------------------------
// Formatting

const numberFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });
/** Axis labels stay short (240K), so they fit next to the plot at 375 px. */
const axisFormat = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 2 });
const utcDay = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
const utcMonth = new Intl.DateTimeFormat(undefined, { month: 'short', year: 'numeric', timeZone: 'UTC' });
const utcMonthShort = new Intl.DateTimeFormat(undefined, {
  month: 'short',
  year: '2-digit',
  timeZone: 'UTC',
});
const utcDayShort = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });

const formatValue = (value: number | null, unit?: string) =>
  value === null ? '—' : `${numberFormat.format(value)}${unit ? ` ${unit}` : ''}`;

const dayOf = (date: string) => new Date(`${date}T00:00:00Z`);

/** A period as people say it: one day, a calendar month, or a range (dates are UTC calendar dates). */
const formatPeriod = (start: string, end: string) => {
  if (start === end) return utcDay.format(dayOf(start));
  const first = dayOf(start);
  const next = dayOf(end);
  next.setUTCDate(next.getUTCDate() + 1);
  const wholeMonth =
    first.getUTCDate() === 1 &&
    next.getUTCDate() === 1 &&
    next.getUTCMonth() === (first.getUTCMonth() + 1) % 12;
  return wholeMonth ? utcMonth.format(first) : `${utcDay.format(first)} – ${utcDay.format(dayOf(end))}`;
};

const days = (n: number) => `${numberFormat.format(n)} day${n === 1 ? '' : 's'}`;

/** Why a KPI is quiet, in words (the rule is the service's: issue 15). */
const quietReason = ({ activity }: KpiWithActivity) => {
  if (!activity.lastReceivedAt) return 'No data yet.';
  const since = Math.floor((Date.now() - Date.parse(activity.lastReceivedAt)) / DAY_MS);
  return `Nothing received for ${days(since)}; usually every ${days(activity.usualIntervalDays ?? 0)}.`;
};

// ---------------------------------------------------------------------------------------------------
// Routes: ?type= (list filter) and ?kpi= (one KPI)

const route = () => {
  const params = new URLSearchParams(location.search);
  const type = params.get('type');
  return {
    kpiId: params.get('kpi'),
    type: KPI_TYPES.includes(type as KpiType) ? (type as KpiType) : null,
  };
};

const navigate = (search: string) => {
  history.pushState(null, '', `${location.pathname}${search}`);
  void show(true);
};

// ---------------------------------------------------------------------------------------------------
// The list

let listed: { type: KpiType | null; items: KpiWithActivity[]; nextCursor?: string | undefined } | null = null;

const sparkline = (points: Point[]): SVGSVGElement => {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('class', 'sparkline');
  svg.setAttribute('viewBox', '0 0 100 28');
  svg.setAttribute('preserveAspectRatio', 'none');
  svg.setAttribute('aria-hidden', 'true');
  const values = points.map((p) => p.actual);
  if (values.length === 0) return svg;
  const min = Math.min(...values);
  const span = Math.max(...values) - min || 1;
  const xy = values.map((value, i) => [
    values.length === 1 ? 100 : (i / (values.length - 1)) * 100,
    26 - ((value - min) / span) * 24,
  ]);
  const line = document.createElementNS(ns, 'polyline');
  line.setAttribute('points', xy.map(([x, y]) => `${x?.toFixed(1)},${y?.toFixed(1)}`).join(' '));
  const [lastX, lastY] = xy.at(-1) ?? [0, 0];
  const dot = document.createElementNS(ns, 'circle');
  dot.setAttribute('cx', String(lastX));
  dot.setAttribute('cy', String(lastY));
  dot.setAttribute('r', '2.5');
  svg.append(line, dot);
  return svg;
};

const kpiRow = (kpi: KpiWithActivity) => {
  const { latest, recent, quiet } = kpi.activity;
  const link = el('a', { href: `?kpi=${encodeURIComponent(kpi.id)}`, class: 'kpi-name' }, kpi.name);
  link.addEventListener('click', (event) => {
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    navigate(`?kpi=${encodeURIComponent(kpi.id)}`);
  });
  const status = quiet
    ? el(
        'span',
        {},
        el('span', { class: 'badge quiet' }, 'Quiet'),
        el('span', { class: 'sub' }, quietReason(kpi)),
      )
    : el('span', { class: 'badge receiving' }, 'Receiving');
  return el(
    'tr',
    { 'data-kpi-id': kpi.id, ...(quiet ? { 'data-quiet': '' } : {}) },
    el('th', { scope: 'row', 'data-label': 'KPI' }, link),
    el('td', { 'data-label': 'Type' }, TYPE_LABELS[kpi.type] ?? kpi.type),
    el(
      'td',
      { 'data-label': 'Latest' },
      latest
        ? el(
            'span',
            { class: 'value' },
            formatValue(latest.actual, kpi.unit),
            ...(latest.target === null
              ? []
              : [el('span', { class: 'sub' }, `target ${formatValue(latest.target, kpi.unit)}`)]),
          )
        : '—',
    ),
    el('td', { 'data-label': 'Period' }, latest ? formatPeriod(latest.periodStart, latest.periodEnd) : '—'),
    el('td', { 'data-label': 'Received' }, timeCell(latest?.receivedAt ?? null, '—')),
    el('td', { 'data-label': 'Trend' }, sparkline([...recent].reverse())),
    el('td', { 'data-label': 'Status' }, status),
  );
};

const renderList = () => {
  const items = listed?.items ?? [];
  ui.table.hidden = items.length === 0;
  ui.body.replaceChildren(...items.map(kpiRow));
  const quiet = items.filter((kpi) => kpi.activity.quiet).length;
  showText(
    ui.listSummary,
    items.length === 0 ? null : `${items.length}${listed?.nextCursor ? '+' : ''} KPIs, ${quiet} quiet.`,
  );
  showText(
    ui.listEmpty,
    items.length > 0
      ? null
      : listed?.type
        ? `Your organization has no KPIs of the type ${TYPE_LABELS[listed.type]}.`
        : 'Your organization has no KPIs yet.',
  );
  ui.more.hidden = !listed?.nextCursor;
};

const loadList = async (type: KpiType | null, cursor?: string) => {
  ui.list.setAttribute('aria-busy', 'true');
  showText(ui.listError, null);
  try {
    const query = new URLSearchParams({ include: 'activity' });
    if (type) query.set('type', type);
    if (cursor) query.set('cursor', cursor);
    const page = await api<Page<KpiWithActivity>>('GET', `/kpis?${query}`);
    const previous = cursor && listed?.type === type ? listed.items : [];
    listed = { type, items: [...previous, ...page.items], nextCursor: page.nextCursor };
    renderList();
  } catch (error) {
    if (!(error instanceof SessionEnded))
      showText(ui.listError, `The KPIs could not be loaded: ${describe(error)}`);
  } finally {
    ui.list.removeAttribute('aria-busy');
  }
};

ui.typeFilter.append(
  ...KPI_TYPES.map((type) => el('option', { value: type }, `${TYPE_LABELS[type]} (${type})`)),
);
ui.typeFilter.addEventListener('change', () => {
  const type = ui.typeFilter.value;
  history.replaceState(null, '', `${location.pathname}${type ? `?type=${encodeURIComponent(type)}` : ''}`);
  void show(false);
});

ui.more.addEventListener('click', async () => {
  const count = listed?.items.length ?? 0;
  await loadList(listed?.type ?? null, listed?.nextCursor);
  // Keyboard users continue at the first new KPI.
  ui.body.querySelectorAll<HTMLAnchorElement>('a.kpi-name')[count]?.focus();
});

// ---------------------------------------------------------------------------------------------------
// One KPI: chart and measurements

let keyNames: Promise<Map<string, KeySummary>> | null = null;

/** The tenant's keys by id, for the names in the table: read once per page load (any role may). */
const loadKeyNames = () => {
  keyNames ??= (async () => {
    const keys = new Map<string, KeySummary>();
    let cursor: string | undefined;
    do {
      const page = await api<Page<KeySummary>>(
        'GET',
        `/api-keys?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      for (const key of page.items) keys.set(key.id, key);
      cursor = page.nextCursor;
    } while (cursor);
    return keys;
  })().catch(() => {
    // Names are a nicety: the prefixes still identify the keys. Try again with the next KPI.
    keyNames = null;
    return new Map<string, KeySummary>();
  });
  return keyNames;
};

let chart: uPlot | null = null;
let resize: ResizeObserver | null = null;

const destroyChart = () => {
  resize?.disconnect();
  chart?.destroy();
  chart = null;
  resize = null;
};

const epochSeconds = (date: string) => dayOf(date).getTime() / 1000;

/**
 * The period under the chart's cursor, as text: in the caption for everyone, and as the value of the
 * chart's slider role for screen readers (WAI-ARIA slider: the arrow keys move it).
 */
const readout = (kpi: Kpi, points: Point[], index: number | null | undefined) => {
  const point = index === null || index === undefined ? undefined : points[index];
  const text = point
    ? `${formatPeriod(point.periodStart, point.periodEnd)}: actual ${formatValue(point.actual, kpi.unit)}, ` +
      `target ${formatValue(point.target, kpi.unit)}, forecast ${formatValue(point.forecast, kpi.unit)}`
    : '';
  ui.readout.textContent = text;
  ui.chart.setAttribute('aria-valuemax', String(Math.max(0, points.length - 1)));
  ui.chart.setAttribute('aria-valuenow', String(point ? index : 0));
  ui.chart.setAttribute('aria-valuetext', text || 'No period selected');
};

/** uPlot draws on a canvas; the figure's caption and the table carry the same values as text. */
const drawChart = (kpi: Kpi, points: Point[]) => {
  destroyChart();
  // Month-long or longer periods are labelled by month, shorter ones by day.
  const first = points[0];
  const periodTick =
    first && dayOf(first.periodEnd).getTime() - dayOf(first.periodStart).getTime() >= 27 * DAY_MS
      ? utcMonthShort
      : utcDayShort;
  const width = () => Math.max(240, ui.chart.clientWidth - 8);
  const height = () => (ui.chart.clientWidth < 500 ? 220 : 300);
  const axis = { stroke: '#57606a', grid: { stroke: '#eaeef2' }, ticks: { stroke: '#d0d7de' } };
  const options: uPlot.Options = {
    width: width(),
    height: height(),
    // Periods are UTC calendar dates: label the axis in UTC, not in the viewer's time zone.
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
    scales: { x: { time: true } },
    legend: { show: false },
    cursor: { drag: { x: false, y: false } },
    series: [
      {},
      {
        label: 'Actual',
        stroke: COLORS.actual,
        width: 2,
        points: { show: true, size: 6, fill: COLORS.actual },
      },
      { label: 'Target', stroke: COLORS.target, width: 2, dash: [8, 5], spanGaps: true },
      { label: 'Forecast', stroke: COLORS.forecast, width: 2, dash: [2, 4], spanGaps: true },
    ],
    axes: [
      {
        ...axis,
        // One tick per period (thinned to about one per 80 px, keeping the newest), labelled as periods.
        splits: (u) => {
          const starts = u.data[0] as number[];
          const every = Math.max(
            1,
            Math.ceil((starts.length * 80) / Math.max(1, u.bbox.width / devicePixelRatio)),
          );
          return starts.filter((_, i) => (starts.length - 1 - i) % every === 0);
        },
        values: (_, ticks) => ticks.map((t) => periodTick.format(new Date(t * 1000))),
      },
      { ...axis, size: 56, values: (_, ticks) => ticks.map((v) => axisFormat.format(v)) },
    ],
    hooks: { setCursor: [(u) => readout(kpi, points, u.cursor.idx)] },
  };
  readout(kpi, points, null);
  chart = new uPlot(
    options,
    [
      points.map((p) => epochSeconds(p.periodStart)),
      points.map((p) => p.actual),
      points.map((p) => p.target),
      points.map((p) => p.forecast),
    ],
    ui.chart,
  );
  resize = new ResizeObserver(() => chart?.setSize({ width: width(), height: height() }));
  resize.observe(ui.chart);
};

/** The keyboard moves the chart's cursor from period to period; the caption reads the values out. */
ui.chart.addEventListener('keydown', (event) => {
  if (!chart) return;
  const count = chart.data[0].length;
  const current = chart.cursor.idx ?? -1;
  const next =
    event.key === 'ArrowRight'
      ? Math.min(count - 1, current + 1)
      : event.key === 'ArrowLeft'
        ? Math.max(0, current < 0 ? count - 1 : current - 1)
        : event.key === 'Home'
          ? 0
          : event.key === 'End'
            ? count - 1
            : null;
  if (next === null) return;
  event.preventDefault();
  const x = chart.data[0][next] as number;
  const y = chart.data[1]?.[next] ?? 0;
  chart.setCursor({ left: chart.valToPos(x, 'x'), top: chart.valToPos(y, 'y') });
});

const keyCell = (m: Measurement, keys: Map<string, KeySummary>) => {
  if (!m.apiKeyPrefix) return document.createTextNode('—');
  const key = m.apiKeyId ? keys.get(m.apiKeyId) : undefined;
  const label = [el('code', {}, m.apiKeyPrefix), key ? key.name : ''];
  return key
    ? el('a', { class: 'key-link', href: `api-keys#key-${encodeURIComponent(key.id)}` }, ...label)
    : el('span', {}, ...label);
};

const measurementRow = (kpi: Kpi, m: Measurement, keys: Map<string, KeySummary>) =>
  el(
    'tr',
    { 'data-period': `${m.periodStart}/${m.periodEnd}` },
    el('th', { scope: 'row', 'data-label': 'Period' }, formatPeriod(m.periodStart, m.periodEnd)),
    el('td', { 'data-label': 'Actual', class: 'value' }, formatValue(m.actual, kpi.unit)),
    el('td', { 'data-label': 'Target', class: 'value' }, formatValue(m.target, kpi.unit)),
    el('td', { 'data-label': 'Forecast', class: 'value' }, formatValue(m.forecast, kpi.unit)),
    el('td', { 'data-label': 'Received' }, timeCell(m.receivedAt, '—')),
    el('td', { 'data-label': 'Pushed with key' }, keyCell(m, keys)),
  );

const loadDetail = async (kpiId: string, focus: boolean) => {
  destroyChart();
  ui.detail.setAttribute('aria-busy', 'true');
  ui.detailTitle.textContent = 'Loading…';
  ui.detailMeta.textContent = '';
  ui.readout.textContent = '';
  ui.figure.hidden = true;
  ui.measurementTable.hidden = true;
  ui.measurementBody.replaceChildren();
  showText(ui.detailEmpty, null);
  showText(ui.detailError, null);
  try {
    // Every page of measurements (one for most KPIs), and the key names, in parallel.
    const keys = loadKeyNames();
    let kpi: Kpi | undefined;
    const measurements: Measurement[] = [];
    let cursor: string | undefined;
    do {
      const page = await api<Kpi & { measurements: Measurement[]; nextCursor?: string }>(
        'GET',
        `/kpis/${encodeURIComponent(kpiId)}?limit=${DETAIL_PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      kpi ??= page;
      measurements.push(...page.measurements);
      cursor = page.nextCursor;
    } while (cursor);
    if (!kpi) return;
    ui.detailTitle.textContent = kpi.name;
    document.title = `${kpi.name} · KPIs · Strategy service`;
    const summary = listed?.items.find((item) => item.id === kpi?.id);
    ui.detailMeta.replaceChildren(
      `${TYPE_LABELS[kpi.type] ?? kpi.type} (${kpi.type}) · ${measurements.length} period${measurements.length === 1 ? '' : 's'}`,
      ...(summary?.activity.quiet
        ? [' · ', el('span', { class: 'badge quiet' }, 'Quiet'), ` ${quietReason(summary)}`]
        : []),
    );
    if (measurements.length === 0) {
      showText(
        ui.detailEmpty,
        'No measurements yet. They appear here once a system pushes them with an API key.',
      );
    } else {
      ui.figure.hidden = false;
      drawChart(kpi, measurements);
      const names = await keys;
      // Newest period first: the question is usually whether the latest push arrived.
      ui.measurementBody.replaceChildren(
        ...[...measurements].reverse().map((m) => measurementRow(kpi as Kpi, m, names)),
      );
      ui.measurementTable.hidden = false;
    }
    announce(`${kpi.name}: ${measurements.length} measurements.`);
  } catch (error) {
    if (error instanceof SessionEnded) return;
    ui.detailTitle.textContent = 'KPI';
    showText(ui.detailError, `The KPI could not be loaded: ${describe(error)}`);
  } finally {
    ui.detail.removeAttribute('aria-busy');
    if (focus) ui.detailTitle.focus();
  }
};

ui.back.addEventListener('click', (event) => {
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
  event.preventDefault();
  const type = listed?.type;
  navigate(type ? `?type=${encodeURIComponent(type)}` : '');
});

// ---------------------------------------------------------------------------------------------------
// Showing the route

let lastKpiId: string | null = null;

/** Renders the current URL. `focus`: move focus to the new view's heading (after a click or Back). */
const show = async (focus: boolean) => {
  const { kpiId, type } = route();
  ui.typeFilter.value = type ?? '';
  if (kpiId) {
    ui.list.hidden = true;
    ui.detail.hidden = false;
    lastKpiId = kpiId;
    await loadDetail(kpiId, focus);
    return;
  }
  destroyChart();
  document.title = 'KPIs · Strategy service';
  ui.detail.hidden = true;
  ui.list.hidden = false;
  if (!listed || listed.type !== type) await loadList(type);
  else renderList();
  const from = lastKpiId
    ? ui.body.querySelector<HTMLElement>(`tr[data-kpi-id="${CSS.escape(lastKpiId)}"] a`)
    : null;
  if (focus) (from ?? ui.listTitle).focus();
};

window.addEventListener('popstate', () => void show(true));

startPage('kpis', {
  signedIn: (interactive) => show(interactive),
  signedOut: () => {
    destroyChart();
    listed = null;
    keyNames = null;
    ui.list.hidden = true;
    ui.detail.hidden = true;
    ui.body.replaceChildren();
    ui.measurementBody.replaceChildren();
  },
});
