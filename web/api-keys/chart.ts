/**
 * A key's last 30 days in its row: uPlot's bars of each day's requests, the refused ones drawn over
 * them, and the counts the chart and its text alternative are made of.
 */
import uPlot from 'uplot';
import type { ApiKeyRecentUsage } from '../shared/api-types';
import { uPlotChart } from '../shared/chart';

export type UsageDays = ApiKeyRecentUsage['days'];

/** The chart's colours: each has at least 3:1 contrast on white (WCAG 1.4.11); the text says the same. */
const USAGE_COLORS = { requests: '#0b5cad', refused: '#b42318' } as const;
const USAGE_CHART = { width: 120, height: 32 } as const;

/**
 * A row's requests as the page counts them. A refusal that comes before the rate counter (a plan
 * without push) is among the refusals but not among the requests, so the requests are at least the
 * refusals: a share never exceeds 100 %.
 */
export const requestsOf = (row: { requests: number; refused: number }) => Math.max(row.requests, row.refused);

/** The bar chart's data: each day's requests, and the refused ones drawn over them. */
const usageData = (days: UsageDays): uPlot.AlignedData => [
  days.map((_, i) => i),
  days.map(requestsOf),
  days.map((day) => day.refused),
];

const usageChartOptions = (days: UsageDays): uPlot.Options => {
  const bars = uPlot.paths.bars?.({ size: [0.75, Number.POSITIVE_INFINITY], gap: 1 });
  const series = (color: string): uPlot.Series => ({
    stroke: color,
    fill: color,
    width: 0,
    paths: bars,
    points: { show: false },
  });
  return {
    ...USAGE_CHART,
    padding: [2, 0, 0, 0],
    legend: { show: false },
    cursor: { show: false },
    select: { show: false, left: 0, top: 0, width: 0, height: 0 },
    // One slot per day, today's on the right; a day with one request is a full bar only in an idle month.
    scales: {
      x: { time: false, range: [-0.5, days.length - 0.5] },
      y: { range: (_u, _min, max) => [0, Math.max(1, max)] },
    },
    axes: [{ show: false }, { show: false }],
    series: [{}, series(USAGE_COLORS.requests), series(USAGE_COLORS.refused)],
  };
};

/** `<div ${usageChart(days)}>`: the bars of a key's days, of a fixed size. */
export const usageChart = uPlotChart(
  (element, days: UsageDays) => new uPlot(usageChartOptions(days), usageData(days), element),
);
