/**
 * A KPI's chart: actual against target and forecast by period, drawn by uPlot on a canvas in an
 * element the view renders, read out by keyboard one period at a time.
 */
import uPlot from 'uplot';
import { uPlotChart } from '../shared/chart';
import { utcDate } from '../shared/format';
import { utcMonth } from './format';
import { type Detail, page } from './state';

/** Series colors: each has at least 3:1 contrast on white (WCAG 1.4.11), and its own dash pattern. */
const COLORS = { actual: '#0b5cad', target: '#1a7f37', forecast: '#8250df', projection: '#9a4f00' } as const;
/** The p10–p90 band's fill: opaque, light, and used by nothing else on the chart. */
export const BAND_FILL = '#fbe3c8';
const DAY_S = 86_400;
const DAY_MS = DAY_S * 1000;

/** Axis labels stay short (240K), so they fit next to the plot at 375 px. */
const axisFormat = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 2 });
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
  const projected = detail.projection?.periods.length ?? 0;
  const first = points[0];
  const last = points.at(-1);
  // Month-long or longer periods are labelled by month, shorter ones by day, with the year when the
  // periods span more than one.
  const byMonth =
    first && utcDate(first.periodEnd).getTime() - utcDate(first.periodStart).getTime() >= 27 * DAY_MS;
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
      { label: 'p10', stroke: BAND_FILL, width: 1, points: { show: false } },
      { label: 'p90', stroke: BAND_FILL, width: 1, points: { show: false } },
      {
        label: 'Projection',
        stroke: COLORS.projection,
        width: 2,
        dash: [6, 3],
        points: { size: 5, fill: COLORS.projection, show: projected > 0 },
      },
    ],
    // The band over the projected periods, to the target period: between p90 (above) and p10.
    bands: projected > 0 ? [{ series: [5, 4], fill: BAND_FILL }] : [],
    axes: [
      {
        ...axis,
        // One tick per period (thinned to about one per 80 px, keeping the newest measured), labelled as periods.
        splits: (u) => {
          const starts = u.data[0] as number[];
          const every = Math.max(
            1,
            Math.ceil((starts.length * 80) / Math.max(1, u.bbox.width / devicePixelRatio)),
          );
          // Anchored at the newest measured period, which keeps its label with a projection after it.
          const newest = Math.max(0, points.length - 1);
          return starts.filter((_, i) => Math.abs(newest - i) % every === 0);
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

const epochSeconds = (date: string) => utcDate(date).getTime() / 1000;

/** The chart of each chart element, for its keyboard handling. */
const charts = new WeakMap<Element, uPlot>();

const cursorMoved = (index: number | null) => {
  if (page.state.cursor !== index) page.update({ cursor: index });
};

/** `<div ${chart(detail)}>`: the chart of `detail`, as wide as the element. */
export const chart = uPlotChart((element, detail: Detail) => {
  const points = detail.measurements;
  const ahead = detail.projection?.periods ?? [];
  const none = ahead.map(() => null);
  // The projection's series hold nothing over the measured periods, its periods nothing else.
  const projected = (pick: (p: (typeof ahead)[number]) => number) =>
    ahead.length > 0 ? [...points.map(() => null), ...ahead.map(pick)] : points.map(() => null);
  const plot = new uPlot(
    chartOptions(element, detail, cursorMoved),
    [
      [...points.map((p) => epochSeconds(p.periodStart)), ...ahead.map((p) => epochSeconds(p.periodStart))],
      [...points.map((p) => p.actual), ...none],
      [...points.map((p) => p.target), ...ahead.map((p) => p.target ?? null)],
      [...points.map((p) => p.forecast), ...none],
      projected((p) => p.p10),
      projected((p) => p.p90),
      projected((p) => p.p50),
    ],
    element,
  );
  charts.set(element, plot);
  return plot;
}, chartSize);

/** The keyboard moves the chart's cursor from period to period; the caption reads the values out. */
export const moveCursor = (event: KeyboardEvent) => {
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
