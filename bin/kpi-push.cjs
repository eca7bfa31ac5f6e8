#!/usr/bin/env node
/**
 * `npx kpi-push …` from a checkout after `npm ci` (package.json `bin`). The CLI is TypeScript, run
 * through tsx (a dev dependency) so that it shares the service's validation code with no build step.
 * `kpi-push --help` is its manual; clients/kpi-push/main.ts its code.
 */
require('tsx/cjs');
const { readFileSync } = require('node:fs');
const { run } = require('../clients/kpi-push/main.ts');

run({
  argv: process.argv.slice(2),
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  // A terminal is not input: without a FILE, only piped or redirected stdin is read.
  readStdin: () => (process.stdin.isTTY ? undefined : readFileSync(0, 'utf8')),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`kpi-push: internal error: ${error instanceof Error ? error.stack : error}\n`);
    process.exitCode = 1;
  },
);
