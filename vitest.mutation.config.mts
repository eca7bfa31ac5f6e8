import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.mts';

/**
 * The tests `npm run mutate` runs against each mutant (issue 16): the unit and integration projects
 * without the tests whose code runs in another process (the operator CLI and the README examples are
 * spawned, the template tests package with serverless, the bench runs its own stack), because Stryker
 * activates a mutant only inside its own test process: those tests could never kill one, and would
 * only make every run slower. The bundle test of the DynamoDB commands is left out too: it bundles
 * the source, and Stryker's instrumented copy keeps every command in a bundle. Fuzzing keeps a small fixed count per property (`npm run fuzz` explores).
 */
export default mergeConfig(
  base,
  defineConfig({
    test: {
      env: { FUZZ_RUNS: '40' },
      exclude: [
        'tests/e2e/**',
        'tests/integration/scripts/**',
        'tests/integration/infra/serverless-package.test.ts',
        'tests/integration/infra/operations-template.test.ts',
        'tests/integration/bench/**',
        'tests/unit/lib/db/dynamo/bundle.test.ts',
        '**/node_modules/**',
      ],
    },
  }),
);
