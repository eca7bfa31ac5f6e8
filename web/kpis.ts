/**
 * The KPI page (served at /platform/kpis by functions/kpis-page.ts): the tenant's KPIs with their
 * latest value, a sparkline, a quiet mark and their status against their target
 * (`GET /kpis?include=activity`), sorted by status (off track first) or by name, and one KPI's chart of
 * actual against target and forecast with its measurements and the keys that pushed them
 * (`GET /kpis/{id}`, `GET /api-keys` for the key names). One state, rendered by lit-html; sign-in,
 * session and navigation are shared with the key page (web/shared/shell.ts). Routes: `?type=<KpiType>`
 * filters the list, `?sort=name` orders it by name, `?kpi=<id>` shows one KPI; they survive a reload
 * and work with Back.
 */
import { html, nothing, svg } from 'lit-html';
import { AsyncDirective, directive, type ElementPart } from 'lit-html/async-directive.js';
import { repeat } from 'lit-html/directives/repeat.js';
import uPlot from 'uplot';
import type { KpiType } from '../lib/domain/kpi';
import type {
  ApiKeyPage,
  ApiKeyResponse,
  KpiDetailResponse,
  KpiPage,
  KpiStatusResponse,
} from './shared/api-types';
import { api, createPage, describe, type PageState, SessionEnded } from './shared/shell';
import { dateOnly, focusById, loadFailed, loadingNotice, timeCell } from './shared/view';

type KpiItem = KpiPage['items'][number];
type Measurement = KpiDetailResponse['measurements'][number];
type Point = Pick<Measurement, 'periodStart' | 'periodEnd' | 'actual' | 'target' | 'forecast'>;
type StatusValue = NonNullable<KpiStatusResponse>['value'];
/** The list's order: by status, the KPIs furthest from their target first, or by name. */
type Sort = 'status' | 'name';

/** One KPI with every page of its measurements, in period order. */
interface Detail {
  kpi: Omit<KpiDetailResponse, 'measurements' | 'nextCursor'>;
  measurements: Measurement[];
}

interface Kpis {
  /** What the URL asks for: `?type=` filters the list, `?kpi=` shows one KPI. */
  route: { kpiId: string | null; type: KpiType | null; sort: Sort };
  /** The KPIs loaded for a type filter (null: every type); shown while the route asks for that type. */
  list: { type: KpiType | null; items: KpiItem[]; nextCursor: string | undefined } | null;
  listLoading: boolean;
  listError: string | null;
  /** The KPI of the route, once loaded. */
  detail: Detail | null;
  detailLoading: boolean;
  detailError: string | null;
  /** The tenant's keys by id, for the names in the measurement table; null until they loaded. */
  keyNames: Map<string, ApiKeyResponse> | null;
  /** The period under the chart's cursor (an index of the measurements). */
  cursor: number | null;
  /** The KPI shown last: back in the list, focus returns to its link. */
  lastKpiId: string | null;
}

type State = PageState<Kpis>;

/**
 * Spec 2.6: what each KPI type stands for; the compiler checks that every type has its label. The
 * domain's list itself is not imported: it comes with its zod schemas, which have no place in a page.
 */
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
const KPI_TYPES = Object.keys(TYPE_LABELS) as KpiType[];

/** A status in words: shown as text in a coloured badge, never as a colour alone. */
const STATUS_LABELS: Record<StatusValue, string> = {
  off_track: 'Off track',
  at_risk: 'At risk',
  on_track: 'On track',
  no_target: 'No target',
  no_data: 'No data',
};
/** The status order: the KPIs that need attention first, those without a status (qualitative) last. */
const STATUS_ORDER = Object.keys(STATUS_LABELS) as StatusValue[];
const SORTS: Record<Sort, string> = { status: 'Status, off track first', name: 'Name' };

/** Series colors: each has at least 3:1 contrast on white (WCAG 1.4.11), and its own dash pattern. */
const COLORS = { actual: '#0b5cad', target: '#1a7f37', forecast: '#8250df' } as const;
const DAY_S = 86_400;
const DAY_MS = DAY_S * 1000;
/** The largest page `GET /kpis/{id}` gives: most KPIs arrive in one request. */
const DETAIL_PAGE = 1000;

// ---------------------------------------------------------------------------------------------------
// Formatting

const numberFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });
/** Axis labels stay short (240K), so they fit next to the plot at 375 px. */
const axisFormat = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 2 });
const utcDay = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
/** "Sep 2025": a month with its whole year, never "Sep 25", which reads as a day as well. */
const utcMonth = new Intl.DateTimeFormat(undefined, { month: 'short', year: 'numeric', timeZone: 'UTC' });
const utcDayParts = new Intl.DateTimeFormat(undefined, {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
});

/** "25 Sep", or "25 Sep 2025": the day before the month, so that the day cannot be read as a year. */
const dayTick = (date: Date, withYear: boolean) => {
  const parts = new Map(utcDayParts.formatToParts(date).map((part) => [part.type, part.value]));
  return [parts.get('day'), parts.get('month'), withYear ? parts.get('year') : undefined]
    .filter(Boolean)
    .join(' ');
};

const formatValue = (value: number | null, unit?: string) =>
  value === null ? '—' : `${numberFormat.format(value)}${unit ? ` ${unit}` : ''}`;

const dayOf = (date: string) => new Date(`${date}T00:00:00Z`);

/**
 * A period as people say it, as short as it stays unambiguous: one day ("Nov 16, 2026"), a calendar
 * month ("Nov 2026"), whole months ("Jul – Sep 2026"), or a range that names a month or a year once
 * ("Nov 16 – 22, 2026"). The list and the detail use it alike; dates are UTC calendar dates.
 */
const formatPeriod = (start: string, end: string) => {
  const first = dayOf(start);
  const last = dayOf(end);
  if (start === end) return utcDay.format(first);
  const next = dayOf(end);
  next.setUTCDate(next.getUTCDate() + 1);
  if (first.getUTCDate() === 1 && next.getUTCDate() === 1) {
    const lastMonth = new Date(Date.UTC(last.getUTCFullYear(), last.getUTCMonth(), 1));
    return lastMonth.getTime() === first.getTime()
      ? utcMonth.format(first)
      : utcMonth.formatRange(first, lastMonth);
  }
  return utcDay.formatRange(first, last);
};

/** What a KPI expects, in words: its cadence and grace period. */
const expectation = (kpi: Pick<KpiItem, 'cadence' | 'graceHours'>) =>
  `Expected ${kpi.cadence}${kpi.graceHours > 0 ? ` (${kpi.graceHours} h grace)` : ''}.`;

/** A day in the user's time zone, the exact instant in `datetime` and `title`. */
const dayOfInstant = (iso: string) =>
  html`<time datetime=${iso} title=${iso}>${dateOnly.format(new Date(iso))}</time>`;

type Arrivals = Pick<KpiItem, 'cadence' | 'graceHours' | 'quiet' | 'quietSince' | 'lastMeasurementAt'>;

/**
 * A quiet KPI's mark: "Quiet since <day>" in words, then the last arrival and what was expected (the
 * rule is the service's: nothing arrived for the cadence plus grace). The text carries the meaning;
 * the colour only repeats it.
 */
const quietMark = (kpi: Arrivals) =>
  html`<span class="quiet-mark"><span class="badge quiet">Quiet since ${
    kpi.quietSince ? dayOfInstant(kpi.quietSince) : '—'
  }</span><span class="sub">${
    kpi.lastMeasurementAt ? html`Last data ${dayOfInstant(kpi.lastMeasurementAt)}.` : 'No data yet.'
  } ${expectation(kpi)}</span></span>`;

/** Whether data arrives as expected: quiet, receiving, or no expectation (no cadence). */
const arrivalView = (kpi: Arrivals) =>
  kpi.quiet
    ? quietMark(kpi)
    : kpi.cadence === 'none'
      ? html`<span class="sub">No cadence set</span>`
      : html`<span><span class="badge receiving">Receiving</span><span class="sub">${expectation(kpi)}</span></span>`;

/** The period under the chart's cursor, as text: the caption, and the chart slider's value. */
const readout = (detail: Detail, index: number | null) => {
  const point = index === null ? undefined : detail.measurements[index];
  const unit = detail.kpi.unit;
  return point
    ? `${formatPeriod(point.periodStart, point.periodEnd)}: actual ${formatValue(point.actual, unit)}, ` +
        `target ${formatValue(point.target, unit)}, forecast ${formatValue(point.forecast, unit)}`
    : '';
};

// ---------------------------------------------------------------------------------------------------
// The chart: uPlot draws on a canvas in an element lit-html renders

/** Values without a neighbour have no line to show them: their points are drawn even where others are not. */
const lonePoints = (u: uPlot, seriesIdx: number, show: boolean) => {
  if (show) return null;
  const values = Array.from(u.data[seriesIdx] ?? [], (value) => value ?? null);
  const lone = values.flatMap((value, i) =>
    value != null && values[i - 1] == null && values[i + 1] == null ? [i] : [],
  );
  return lone.length > 0 ? lone : null;
};

const chartOptions = (element: HTMLElement, detail: Detail, onCursor: (index: number | null) => void) => {
  const points = detail.measurements;
  const first = points[0];
  const last = points.at(-1);
  // Month-long or longer periods are labelled by month, shorter ones by day, with the year when the
  // periods span more than one.
  const byMonth =
    first && dayOf(first.periodEnd).getTime() - dayOf(first.periodStart).getTime() >= 27 * DAY_MS;
  const withYear = first?.periodStart.slice(0, 4) !== last?.periodStart.slice(0, 4);
  const tick = (date: Date) => (byMonth ? utcMonth.format(date) : dayTick(date, withYear));
  const axis = { stroke: '#57606a', grid: { stroke: '#eaeef2' }, ticks: { stroke: '#d0d7de' } };
  const dots = (fill: string) => ({ size: 6, fill, filter: lonePoints });
  const options: uPlot.Options = {
    ...chartSize(element),
    // Periods are UTC calendar dates: label the axis in UTC, not in the viewer's time zone.
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
    // A single period stands in the middle, not at the edge of a range of zero width.
    scales: {
      x: { time: true, range: (_, min, max) => (min === max ? [min - DAY_S, max + DAY_S] : [min, max]) },
    },
    // Room on the right for half the newest period's label: it is centred on the last point.
    padding: [null, 36, null, null],
    legend: { show: false },
    cursor: { drag: { x: false, y: false } },
    series: [
      {},
      { label: 'Actual', stroke: COLORS.actual, width: 2, points: { ...dots(COLORS.actual), show: true } },
      {
        label: 'Target',
        stroke: COLORS.target,
        width: 2,
        dash: [8, 5],
        spanGaps: true,
        points: dots(COLORS.target),
      },
      {
        label: 'Forecast',
        stroke: COLORS.forecast,
        width: 2,
        dash: [2, 4],
        spanGaps: true,
        points: dots(COLORS.forecast),
      },
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
        values: (_, ticks) => ticks.map((t) => tick(new Date(t * 1000))),
      },
      { ...axis, size: 56, values: (_, ticks) => ticks.map((v) => axisFormat.format(v)) },
    ],
    hooks: { setCursor: [(u) => onCursor(u.cursor.idx ?? null)] },
  };
  return options;
};

const chartSize = (element: HTMLElement) => ({
  width: Math.max(240, element.clientWidth - 8),
  height: element.clientWidth < 500 ? 220 : 300,
});

const epochSeconds = (date: string) => dayOf(date).getTime() / 1000;

/** The chart of each chart element, for its keyboard handling. */
const charts = new WeakMap<Element, uPlot>();

/**
 * `<div ${chart(detail, onCursor)}>`: uPlot's chart of `detail` in that element, drawn again when the
 * detail changes and destroyed when lit-html removes the element.
 */
class ChartDirective extends AsyncDirective {
  private drawn: Detail | null = null;
  private plot: uPlot | null = null;
  private resize: ResizeObserver | null = null;

  render(_detail: Detail, _onCursor: (index: number | null) => void) {
    return nothing;
  }

  override update(part: ElementPart, [detail, onCursor]: [Detail, (index: number | null) => void]) {
    if (detail !== this.drawn) {
      this.drawn = detail;
      const element = part.element as HTMLElement;
      // The element is in the document, with its width, once the render that made it is done.
      queueMicrotask(() => {
        if (this.drawn === detail && this.isConnected) this.draw(element, detail, onCursor);
      });
    }
    return nothing;
  }

  private draw(element: HTMLElement, detail: Detail, onCursor: (index: number | null) => void) {
    this.destroy();
    const points = detail.measurements;
    const plot = new uPlot(
      chartOptions(element, detail, onCursor),
      [
        points.map((p) => epochSeconds(p.periodStart)),
        points.map((p) => p.actual),
        points.map((p) => p.target),
        points.map((p) => p.forecast),
      ],
      element,
    );
    charts.set(element, plot);
    this.plot = plot;
    this.resize = new ResizeObserver(() => plot.setSize(chartSize(element)));
    this.resize.observe(element);
  }

  private destroy() {
    this.resize?.disconnect();
    this.plot?.destroy();
    this.resize = null;
    this.plot = null;
  }

  protected override disconnected() {
    this.destroy();
    this.drawn = null;
  }
}

const chart = directive(ChartDirective);

/** The keyboard moves the chart's cursor from period to period; the caption reads the values out. */
const moveCursor = (event: KeyboardEvent) => {
  const plot = charts.get(event.currentTarget as Element);
  if (!plot) return;
  const count = plot.data[0].length;
  const current = plot.cursor.idx ?? -1;
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
  const x = plot.data[0][next] as number;
  const y = plot.data[1]?.[next] ?? 0;
  plot.setCursor({ left: plot.valToPos(x, 'x'), top: plot.valToPos(y, 'y') });
};

const cursorMoved = (index: number | null) => {
  if (page.state.cursor !== index) page.update({ cursor: index });
};

// ---------------------------------------------------------------------------------------------------
// The view

const sparkline = (points: Point[]) => {
  const values = points.map((p) => p.actual);
  return html`<svg class="sparkline" viewBox="0 0 100 28" preserveAspectRatio="none" aria-hidden="true">${
    values.length === 0 ? nothing : sparklinePath(values)
  }</svg>`;
};

/** The values as a line across the box, the newest marked with a dot. */
const sparklinePath = (values: number[]) => {
  const min = Math.min(...values);
  const span = Math.max(...values) - min || 1;
  const xy = values.map((value, i) => [
    values.length === 1 ? 100 : (i / (values.length - 1)) * 100,
    26 - ((value - min) / span) * 24,
  ]);
  const [lastX, lastY] = xy.at(-1) ?? [0, 0];
  return svg`<polyline points=${xy.map(([x, y]) => `${x?.toFixed(1)},${y?.toFixed(1)}`).join(' ')}></polyline><circle cx=${String(lastX)} cy=${String(lastY)} r="2.5"></circle>`;
};

/** A KPI's link carries the list's filter and order, so that "All KPIs" returns to the same list. */
const kpiLink = (kpi: { id: string; name: string }, route: Kpis['route']) => {
  const search = `?kpi=${encodeURIComponent(kpi.id)}${listSearch(route).replace('?', '&')}`;
  return html`<a href=${search} class="kpi-name" @click=${(event: MouseEvent) => follow(event, search)}>${kpi.name}</a>`;
};

/**
 * A KPI's status as a badge with its words; "as of" names the period it is measured on when that is
 * not the latest one (the newest measurement with a target). A qualitative KPI has none.
 */
const statusView = (status: KpiItem['status'], latest: Point | null) => {
  if (status === undefined) return '—';
  if (status === null) {
    return html`<span class="status-none" title="A qualitative KPI has no target to track">—<span class="visually-hidden">qualitative, no status</span></span>`;
  }
  const measured = status.measurement;
  const older =
    measured &&
    latest &&
    (measured.periodStart !== latest.periodStart || measured.periodEnd !== latest.periodEnd);
  return html`<span><span class="badge status ${status.value}">${STATUS_LABELS[status.value]}</span>${
    older
      ? html`<span class="sub">as of ${formatPeriod(measured.periodStart, measured.periodEnd)}</span>`
      : nothing
  }</span>`;
};

const kpiRow = (kpi: KpiItem, route: Kpis['route']) => {
  const latest = kpi.activity?.latest ?? null;
  return html`<tr data-kpi-id=${kpi.id} ?data-quiet=${kpi.quiet} data-status=${kpi.status?.value ?? 'none'}>
    <th scope="row" data-label="KPI">${kpiLink(kpi, route)}</th>
    <td data-label="Type">${TYPE_LABELS[kpi.type] ?? kpi.type}</td>
    <td data-label="Latest">${
      latest
        ? html`<span class="value">${formatValue(latest.actual, kpi.unit)}${
            latest.target === null
              ? nothing
              : html`<span class="sub">target ${formatValue(latest.target, kpi.unit)}</span>`
          }</span>`
        : '—'
    }</td>
    <td data-label="Period">${latest ? formatPeriod(latest.periodStart, latest.periodEnd) : '—'}</td>
    <td data-label="Received">${timeCell(latest?.receivedAt ?? null, '—')}</td>
    <td data-label="Trend">${sparkline([...(kpi.activity?.recent ?? [])].reverse())}</td>
    <td data-label="Target status">${statusView(kpi.status, latest)}</td>
    <td data-label="Status">${arrivalView(kpi)}</td>
  </tr>`;
};

/** The position of a KPI's status in the status order; qualitative KPIs come last. */
const statusRank = (kpi: KpiItem) =>
  kpi.status ? STATUS_ORDER.indexOf(kpi.status.value) : STATUS_ORDER.length;

const byName = (a: KpiItem, b: KpiItem) =>
  a.name.localeCompare(b.name, undefined, { numeric: true, sensitivity: 'base' });

/** The KPIs in the list's order: by status (then name), or by name. */
const sorted = (items: KpiItem[], sort: Sort) =>
  [...items].sort(sort === 'status' ? (a, b) => statusRank(a) - statusRank(b) || byName(a, b) : byName);

const listView = (state: State) => {
  const { route } = state;
  const { type, sort } = route;
  const list = state.list?.type === type ? state.list : null;
  const items = list?.items ?? [];
  const quiet = items.filter((kpi) => kpi.quiet).length;
  const offTrack = items.filter((kpi) => kpi.status?.value === 'off_track').length;
  return html`<section id="list" aria-labelledby="list-title" aria-busy=${state.listLoading ? 'true' : nothing}>
    <div class="section-head">
      <h2 id="list-title" tabindex="-1">KPIs of your organization</h2>
      <div class="controls">
        <div class="filter">
          <label for="type-filter">Type</label>
          <select id="type-filter" @change=${filter}>
            <option value="" .selected=${type === null}>All types</option>
            ${KPI_TYPES.map(
              (option) =>
                html`<option value=${option} .selected=${option === type}>${TYPE_LABELS[option]} (${option})</option>`,
            )}
          </select>
        </div>
        <div class="filter">
          <label for="sort">Sort by</label>
          <select id="sort" @change=${sortBy}>
            ${(Object.keys(SORTS) as Sort[]).map(
              (option) =>
                html`<option value=${option} .selected=${option === sort}>${SORTS[option]}</option>`,
            )}
          </select>
        </div>
      </div>
    </div>
    ${
      items.length > 0
        ? html`<p id="list-summary" class="hint">${items.length}${list?.nextCursor ? '+' : ''} KPIs, ${quiet} quiet${
            offTrack > 0 ? `, ${offTrack} off track` : ''
          }.</p>`
        : nothing
    }
    ${state.listError ? loadFailed('list-error', 'The KPIs', state.listError, retryList) : nothing}
    ${
      !list
        ? nothing
        : items.length === 0
          ? html`<p id="list-empty" class="empty">${
              type
                ? `Your organization has no KPIs of the type ${TYPE_LABELS[type]}.`
                : 'Your organization has no KPIs yet.'
            }</p>`
          : html`<table id="kpi-table">
              <caption class="visually-hidden">KPIs with their latest measurement</caption>
              <thead>
                <tr>
                  <th scope="col" aria-sort=${sort === 'name' ? 'ascending' : nothing}>KPI</th>
                  <th scope="col">Type</th>
                  <th scope="col">Latest</th>
                  <th scope="col">Period</th>
                  <th scope="col">Received</th>
                  <th scope="col">Trend</th>
                  <th scope="col" aria-sort=${sort === 'status' ? 'other' : nothing}>Target status</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody id="kpi-body">${repeat(
                sorted(items, sort),
                (kpi) => kpi.id,
                (kpi) => kpiRow(kpi, route),
              )}</tbody>
            </table>`
    }
    ${state.listLoading ? loadingNotice('list-loading', list ? 'Loading more KPIs…' : 'Loading KPIs…') : nothing}
    ${
      list?.nextCursor && !state.listLoading
        ? html`<div><button type="button" id="list-more" @click=${more}>Show more KPIs</button></div>`
        : nothing
    }
  </section>`;
};

const keyCell = (m: Measurement, keys: Map<string, ApiKeyResponse> | null) => {
  // A pulled value names its integration where a pushed one names its key.
  if (m.integrationId) {
    return html`<a class="integration-link" href="integrations#integration-${encodeURIComponent(m.integrationId)}">pulled by ${m.integrationName ?? 'an integration'}</a>`;
  }
  if (!m.apiKeyPrefix) return '—';
  const key = m.apiKeyId ? keys?.get(m.apiKeyId) : undefined;
  return key
    ? html`<a class="key-link" href="api-keys#key-${encodeURIComponent(key.id)}"><code>${m.apiKeyPrefix}</code>${key.name}</a>`
    : html`<span><code>${m.apiKeyPrefix}</code></span>`;
};

const measurementRow = (detail: Detail, m: Measurement, keys: Map<string, ApiKeyResponse> | null) => {
  const unit = detail.kpi.unit;
  return html`<tr data-period="${m.periodStart}/${m.periodEnd}">
    <th scope="row" data-label="Period">${formatPeriod(m.periodStart, m.periodEnd)}</th>
    <td data-label="Actual" class="value">${formatValue(m.actual, unit)}</td>
    <td data-label="Target" class="value">${formatValue(m.target, unit)}</td>
    <td data-label="Forecast" class="value">${formatValue(m.forecast, unit)}</td>
    <td data-label="Received">${timeCell(m.receivedAt, '—')}</td>
    <td data-label="Pushed with key">${keyCell(m, keys)}</td>
  </tr>`;
};

/** uPlot draws on a canvas; the figure's caption and the table carry the same values as text. */
const measurementsView = (state: State, detail: Detail) => {
  const { measurements } = detail;
  if (measurements.length === 0) {
    return html`<p id="detail-empty" class="empty">No measurements yet. They appear here once a system pushes them with an API key.</p>`;
  }
  const text = readout(detail, state.cursor);
  return html`<figure id="chart-figure">
      <div id="chart" class="chart" role="slider" tabindex="0" aria-label="Period shown in the chart" aria-describedby="chart-help" aria-valuemin="0" aria-valuemax=${Math.max(0, measurements.length - 1)} aria-valuenow=${text ? (state.cursor ?? 0) : 0} aria-valuetext=${text || 'No period selected'} @keydown=${moveCursor} ${chart(detail, cursorMoved)}></div>
      <figcaption>
        <ul class="legend">
          <li><span class="swatch actual"></span>Actual</li>
          <li><span class="swatch target"></span>Target</li>
          <li><span class="swatch forecast"></span>Forecast</li>
        </ul>
        <p id="chart-help" class="hint">
          Actual against target and forecast by period. Focus the chart and use the arrow keys (Home, End) to
          read each period; the table below has every value.
        </p>
        <p id="chart-readout" class="readout">${text}</p>
      </figcaption>
    </figure>
    <h3 id="measurements-title">Measurements</h3>
    <table id="measurement-table" aria-labelledby="measurements-title">
      <thead>
        <tr>
          <th scope="col">Period</th>
          <th scope="col">Actual</th>
          <th scope="col">Target</th>
          <th scope="col">Forecast</th>
          <th scope="col">Received</th>
          <th scope="col">Pushed with key</th>
        </tr>
      </thead>
      <tbody id="measurement-body">${
        // Newest period first: the question is usually whether the latest push arrived.
        [...measurements].reverse().map((m) => measurementRow(detail, m, state.keyNames))
      }</tbody>
    </table>`;
};

const detailView = (state: State) => {
  const { detail, route } = state;
  const summary = state.list?.items.find((item) => item.id === route.kpiId);
  const list = listSearch(route);
  return html`<section id="detail" aria-labelledby="detail-title" aria-busy=${state.detailLoading ? 'true' : nothing}>
    <p class="back"><a id="back" href="kpis${list}" @click=${(event: MouseEvent) => follow(event, list)}>← All KPIs</a></p>
    <h2 id="detail-title" tabindex="-1">${detail?.kpi.name ?? summary?.name ?? 'KPI'}</h2>
    ${
      detail
        ? html`<p id="detail-meta" class="hint">${TYPE_LABELS[detail.kpi.type] ?? detail.kpi.type} (${detail.kpi.type}) · ${
            detail.measurements.length
          } period${detail.measurements.length === 1 ? '' : 's'} · ${statusView(
            detail.kpi.status,
            detail.measurements.at(-1) ?? null,
          )}${detail.kpi.quiet ? html` · ${quietMark(detail.kpi)}` : nothing}</p>`
        : nothing
    }
    ${state.detailError ? loadFailed('detail-error', 'The KPI', state.detailError, retryDetail) : nothing}
    ${state.detailLoading ? loadingNotice('detail-loading', 'Loading the KPI…') : nothing}
    ${detail ? measurementsView(state, detail) : nothing}
  </section>`;
};

const page = createPage<Kpis>({
  name: 'kpis',
  title: 'KPIs',
  lead: html`What your external systems pushed: each KPI's latest value, when it arrived and which API key sent
    it, and how it tracks its target.`,
  initial: {
    route: { kpiId: null, type: null, sort: 'status' },
    list: null,
    listLoading: false,
    listError: null,
    detail: null,
    detailLoading: false,
    detailError: null,
    keyNames: null,
    cursor: null,
    lastKpiId: null,
  },
  content: (state) => (state.route.kpiId ? detailView(state) : listView(state)),
  documentTitle: ({ route, detail }) =>
    route.kpiId && detail ? `${detail.kpi.name} · KPIs · Strategy service` : 'KPIs · Strategy service',
  signedIn: (interactive) => show(interactive),
});

// ---------------------------------------------------------------------------------------------------
// Loading

/** Counts loads, so that only the latest one's answer is shown when several overlap. */
const loads = { list: 0, detail: 0 };

/** Whether a load's answer is still wanted: no newer load, and no sign-out, came meanwhile. */
const current = (kind: keyof typeof loads, load: number) =>
  load === loads[kind] && page.state.shell.claims !== null;

/** Loads a page of the list: the first of a type, or the next (`cursor`). True if it arrived. */
const loadList = async (type: KpiType | null, cursor?: string): Promise<boolean> => {
  const load = ++loads.list;
  page.update({ listLoading: true, listError: null });
  try {
    const query = new URLSearchParams({ include: 'activity' });
    if (type) query.set('type', type);
    if (cursor) query.set('cursor', cursor);
    const next = await api<KpiPage>('GET', `/kpis?${query}`);
    if (!current('list', load)) return false;
    const previous = cursor && page.state.list?.type === type ? page.state.list.items : [];
    page.update({
      list: { type, items: [...previous, ...next.items], nextCursor: next.nextCursor },
      listLoading: false,
    });
    return true;
  } catch (error) {
    if (!(error instanceof SessionEnded) && current('list', load))
      page.update({ listLoading: false, listError: describe(error) });
    return false;
  }
};

const more = async () => {
  const { list } = page.state;
  if (!list?.nextCursor) return;
  const shown = new Set(list.items.map((kpi) => kpi.id));
  // Keyboard users continue at the first new KPI in the list's order.
  if (await loadList(list.type, list.nextCursor)) {
    const rows = document.querySelectorAll<HTMLElement>('#kpi-body tr[data-kpi-id]');
    const first = Array.from(rows).find((row) => !shown.has(row.dataset.kpiId ?? ''));
    first?.querySelector<HTMLElement>('a.kpi-name')?.focus();
  }
};

/** Retrying keeps the keyboard in the section: the button goes away while the list loads. */
const retryList = () => {
  focusById('list-title');
  const { list, route } = page.state;
  void (list?.type === route.type && list.nextCursor ? more() : loadList(route.type));
};

/** The tenant's keys by id (any role may read them); null if they could not be loaded. */
const loadKeyNames = async (): Promise<Map<string, ApiKeyResponse> | null> => {
  try {
    const keys = new Map<string, ApiKeyResponse>();
    let cursor: string | undefined;
    do {
      const next = await api<ApiKeyPage>(
        'GET',
        `/api-keys?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      for (const key of next.items) keys.set(key.id, key);
      cursor = next.nextCursor;
    } while (cursor);
    return keys;
  } catch {
    // Names are a nicety: the prefixes still identify the keys. They are tried again with the next KPI.
    return null;
  }
};

/** Every page of a KPI's measurements (one for most KPIs). */
const loadMeasurements = async (kpiId: string): Promise<Detail> => {
  const path = (cursor?: string) =>
    `/kpis/${encodeURIComponent(kpiId)}?limit=${DETAIL_PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
  const { measurements, nextCursor, ...kpi } = await api<KpiDetailResponse>('GET', path());
  for (let cursor = nextCursor; cursor; ) {
    const next = await api<KpiDetailResponse>('GET', path(cursor));
    measurements.push(...next.measurements);
    cursor = next.nextCursor;
  }
  return { kpi, measurements };
};

const loadDetail = async (kpiId: string, focus: boolean) => {
  const load = ++loads.detail;
  page.update({ detail: null, detailLoading: true, detailError: null, cursor: null, lastKpiId: kpiId });
  try {
    const [detail, keyNames] = await Promise.all([
      loadMeasurements(kpiId),
      page.state.keyNames ?? loadKeyNames(),
    ]);
    if (!current('detail', load)) return;
    page.update({ detail, keyNames, detailLoading: false });
    const count = detail.measurements.length;
    page.announce(`${detail.kpi.name}: ${count} measurement${count === 1 ? '' : 's'}.`);
  } catch (error) {
    if (error instanceof SessionEnded || !current('detail', load)) return;
    page.update({ detailLoading: false, detailError: describe(error) });
  }
  if (focus) focusById('detail-title');
};

const retryDetail = () => {
  focusById('detail-title');
  const { kpiId } = page.state.route;
  if (kpiId) void loadDetail(kpiId, false);
};

// ---------------------------------------------------------------------------------------------------
// Routes: ?type= (list filter), ?sort= (list order) and ?kpi= (one KPI)

const route = (): Kpis['route'] => {
  const params = new URLSearchParams(location.search);
  const type = params.get('type');
  return {
    kpiId: params.get('kpi'),
    type: KPI_TYPES.includes(type as KpiType) ? (type as KpiType) : null,
    sort: params.get('sort') === 'name' ? 'name' : 'status',
  };
};

/** The list's query: its filter and its order (status, the default, is left out). */
const listSearch = ({ type, sort }: Pick<Kpis['route'], 'type' | 'sort'>) => {
  const query = new URLSearchParams();
  if (type) query.set('type', type);
  if (sort !== 'status') query.set('sort', sort);
  const search = query.toString();
  return search ? `?${search}` : '';
};

/** Shows the current URL. `focus`: move focus to the new view's heading (after a click or Back). */
const show = async (focus: boolean) => {
  const next = route();
  // An error belongs to the view it was said in; a list not loaded for this view loads again below.
  page.update({ route: next, listError: null });
  if (next.kpiId) {
    await loadDetail(next.kpiId, focus);
    return;
  }
  const { list, lastKpiId } = page.state;
  if (list?.type !== next.type && !(await loadList(next.type))) return;
  if (!focus) return;
  const from = lastKpiId
    ? document.querySelector<HTMLElement>(`#kpi-body tr[data-kpi-id="${CSS.escape(lastKpiId)}"] a`)
    : null;
  (from ?? document.getElementById('list-title'))?.focus();
};

const follow = (event: MouseEvent, search: string) => {
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
  event.preventDefault();
  history.pushState(null, '', `${location.pathname}${search}`);
  void show(true);
};

const filter = (event: Event) => {
  const value = (event.currentTarget as HTMLSelectElement).value;
  const type = KPI_TYPES.includes(value as KpiType) ? (value as KpiType) : null;
  history.replaceState(null, '', `${location.pathname}${listSearch({ ...page.state.route, type })}`);
  void show(false);
};

/** A new order: the KPIs loaded are sorted again, nothing is loaded; the focus stays on the control. */
const sortBy = (event: Event) => {
  const sort: Sort = (event.currentTarget as HTMLSelectElement).value === 'name' ? 'name' : 'status';
  history.replaceState(null, '', `${location.pathname}${listSearch({ ...page.state.route, sort })}`);
  void show(false);
  page.announce(`Sorted by ${SORTS[sort].toLowerCase()}.`);
};

window.addEventListener('popstate', () => {
  if (page.state.shell.claims) void show(true);
});

page.start();
