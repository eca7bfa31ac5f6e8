/**
 * `npm run bench -- --forecast`: the forecast engine's accuracy on real public series
 * (bench/forecast/series.json, exported from R's `datasets` by bench/forecast/reference.R), rolling
 * origin over each series' last 12 values, 1 and 3 periods ahead, for every candidate model, for the
 * per-series choice (made at each origin from the history before it, as a projection makes it), and
 * for R's forecast::ets fitted at the same origins (bench/forecast/reference.json), scored by the same
 * code. Prints the tables and the targets, and answers the targets missed.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Accuracy, type ForecastAt, rollingOrigin } from '../lib/forecast/accuracy';
import { quantiles } from '../lib/forecast/distribution';
import { MODELS } from '../lib/forecast/models';
import { chooseModel, forecastsOf, project } from '../lib/forecast/projection';

const WINDOW = 12;

interface Series {
  name: string;
  source: string;
  frequency: number;
  values: number[];
}
interface Reference {
  name: string;
  origins: { origin: number; method: string; mean: number[]; lower: number[]; upper: number[] }[];
}

const read = <T>(file: string): T =>
  JSON.parse(readFileSync(resolve(__dirname, 'forecast', file), 'utf8')) as T;

/** The choice at each origin, from that origin's history only. */
const choiceAt =
  (values: readonly number[], seasonLength: number, chosen: string[]): ForecastAt =>
  (origin, horizon) => {
    const history = values.slice(0, origin);
    const choice = chooseModel(history, seasonLength);
    chosen.push(choice.method);
    return choice.forecast(history, seasonLength, horizon)?.map((p) => {
      const q = quantiles(p);
      return { point: q.p50, lower: q.p10, upper: q.p90 };
    });
  };

const etsAt =
  (reference: Reference): ForecastAt =>
  (origin) => {
    const fit = reference.origins.find((o) => o.origin === origin);
    return fit?.mean.map((point, i) => ({
      point,
      lower: fit.lower[i] as number,
      upper: fit.upper[i] as number,
    }));
  };

const round = (x: number | null | undefined, digits = 2) =>
  x === null || x === undefined ? '' : +x.toFixed(digits);
const mean = (xs: (number | null)[]) => {
  const present = xs.filter((x): x is number => x !== null);
  return present.length === 0 ? null : present.reduce((s, x) => s + x, 0) / present.length;
};

export interface ForecastBench {
  columns: string[];
  rows: {
    series: string;
    source: string;
    frequency: number;
    n: number;
    chosen: string;
    scores: Record<string, Accuracy | undefined>;
  }[];
  means: Record<string, { mase1: number | null; mase3: number | null; coverage80: number | null }>;
  targets: { name: string; ok: boolean; measured: string }[];
  /** One projection's time (choice included, 12 periods ahead) by history length: median of 5 runs. */
  computeMs: { periods: number; ms: number }[];
  ms: number;
}

/** The tail of co2 (monthly): what a projection computes for a KPI of each history length. */
const computeTimes = (values: readonly number[]) =>
  [24, 60, 200].map((periods) => {
    const history = values.slice(-periods);
    const times = Array.from({ length: 5 }, () => {
      const start = performance.now();
      project({ values: history, lastPeriod: 'last', seasonLength: 12, periods: 12 });
      return performance.now() - start;
    }).sort((a, b) => a - b);
    return { periods, ms: Math.round((times[2] as number) * 10) / 10 };
  });

export const runForecastBench = (): ForecastBench => {
  const started = performance.now();
  const { series } = read<{ series: Series[] }>('series.json');
  const { ets } = read<{ ets: Reference[] }>('reference.json');
  const columns = [...MODELS.map((m) => m.method), 'choice', 'R ets'];
  const rows = series.map(({ name, source, frequency, values }) => {
    const scores: Record<string, Accuracy | undefined> = {};
    for (const model of MODELS)
      scores[model.method] = rollingOrigin(
        values,
        frequency,
        WINDOW,
        forecastsOf(model.forecast, values, frequency),
      );
    const chosen: string[] = [];
    scores.choice = rollingOrigin(values, frequency, WINDOW, choiceAt(values, frequency, chosen));
    const reference = ets.find((r) => r.name === name);
    scores['R ets'] = reference && rollingOrigin(values, frequency, WINDOW, etsAt(reference));
    const counts = new Map<string, number>();
    for (const method of chosen) counts.set(method, (counts.get(method) ?? 0) + 1);
    const summary = [...counts].map(([method, count]) => `${method} ${count}`).join(', ');
    return { series: name, source, frequency, n: values.length, chosen: summary, scores };
  });
  const means = Object.fromEntries(
    columns.map((column) => [
      column,
      {
        mase1: mean(rows.map((r) => r.scores[column]?.mase1 ?? null)),
        mase3: mean(rows.map((r) => r.scores[column]?.mase3 ?? null)),
        coverage80: mean(rows.map((r) => r.scores[column]?.coverage80 ?? null)),
      },
    ]),
  );
  const choice = means.choice as ForecastBench['means'][string];
  const reference = means['R ets'] as ForecastBench['means'][string];
  const worse = rows.filter((r) =>
    (['mase1', 'mase3'] as const).some(
      (k) =>
        (r.scores.choice?.[k] ?? Number.POSITIVE_INFINITY) >
        (r.scores.seasonal_naive?.[k] ?? Number.POSITIVE_INFINITY),
    ),
  );
  const within = (k: 'mase1' | 'mase3') =>
    (choice[k] ?? Number.POSITIVE_INFINITY) <= 1.05 * (reference[k] ?? 0);
  const coverage = choice.coverage80 ?? 0;
  const targets = [
    {
      name: 'choice MASE ≤ seasonal naive on every series, 1 and 3 ahead',
      ok: worse.length === 0,
      measured: worse.length === 0 ? 'all' : `worse on ${worse.map((r) => r.series).join(', ')}`,
    },
    {
      name: 'choice mean MASE 1 ahead ≤ 1.05 × R ets',
      ok: within('mase1'),
      measured: `${round(choice.mase1, 3)} vs ${round(reference.mase1, 3)} (${round(((choice.mase1 ?? 0) / (reference.mase1 ?? 1)) * 100 - 100, 1)} %)`,
    },
    {
      name: 'choice mean MASE 3 ahead ≤ 1.05 × R ets',
      ok: within('mase3'),
      measured: `${round(choice.mase3, 3)} vs ${round(reference.mase3, 3)} (${round(((choice.mase3 ?? 0) / (reference.mase3 ?? 1)) * 100 - 100, 1)} %)`,
    },
    {
      name: 'choice 80 % coverage between 70 % and 90 %',
      ok: coverage >= 0.7 && coverage <= 0.9,
      measured: `${round(coverage * 100, 1)} %`,
    },
  ];
  const co2 = series.find((s) => s.name === 'co2') as Series;
  return {
    columns,
    rows,
    means,
    targets,
    computeMs: computeTimes(co2.values),
    ms: performance.now() - started,
  };
};

export const printForecastBench = (bench: ForecastBench): boolean => {
  const table = (metric: 'mase1' | 'mase3' | 'coverage80', title: string) => {
    console.log(`\n${title}`);
    console.table([
      ...bench.rows.map((r) => ({
        series: `${r.series} (m=${r.frequency}, n=${r.n})`,
        ...Object.fromEntries(bench.columns.map((c) => [c, round(r.scores[c]?.[metric])])),
      })),
      {
        series: 'mean',
        ...Object.fromEntries(bench.columns.map((c) => [c, round(bench.means[c]?.[metric] ?? null, 3)])),
      },
    ]);
  };
  table('mase1', 'MASE, 1 period ahead (rolling origin over the last 12 values)');
  table('mase3', 'MASE, 3 periods ahead');
  table('coverage80', 'Share of values inside the 80 % interval (1 and 3 ahead together)');
  console.log('\nThe choice at each origin:');
  console.table(bench.rows.map((r) => ({ series: r.series, source: r.source, chosen: r.chosen })));
  console.table(
    bench.targets.map((t) => ({ target: t.name, measured: t.measured, ok: t.ok ? 'yes' : 'NO' })),
  );
  console.log('\nOne projection (choice included, 12 ahead), median of 5, by history length (co2):');
  console.table(bench.computeMs.map((c) => ({ periods: c.periods, ms: c.ms })));
  console.log(`forecast bench: ${(bench.ms / 1000).toFixed(1)} s`);
  return bench.targets.every((t) => t.ok);
};
