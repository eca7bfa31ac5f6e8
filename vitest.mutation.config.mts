import { relative } from 'node:path';
import { defineConfig, mergeConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import base from './vitest.config.mts';

/**
 * The order that kills a mutant soonest: Stryker's vitest runner stops at the first failing test, and
 * vitest's own order would run the integration project first (projects by name) and its longest files
 * first. Here unit tests come first, then the files that failed last time (they killed the mutant
 * before this one, often in the same function), then the quickest.
 */
class QuickKillFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]) {
    const rank = (file: TestSpecification) => {
      const last = this.ctx.cache.getFileTestResults(
        `${file.project.name}:${relative(this.ctx.config.root, file.moduleId)}`,
      );
      return [file.project.name === 'unit' ? 0 : 1, last?.failed ? 0 : 1, last?.duration ?? 0];
    };
    return [...files].sort((a, b) => {
      const [ra, rb] = [rank(a), rank(b)];
      for (let i = 0; i < ra.length; i++) if (ra[i] !== rb[i]) return (ra[i] as number) - (rb[i] as number);
      return 0;
    });
  }
}

/**
 * The tests `npm run mutate` runs against each mutant: the unit and integration projects
 * without the tests whose code runs in another process (the operator CLI and the docs' examples are
 * spawned, the template tests package with serverless, the bench runs its own stack), because Stryker
 * activates a mutant only inside its own test process: those tests could never kill one, and would
 * only make every run slower. Fuzzing keeps a small fixed count per property (`npm run fuzz` explores).
 */
export default mergeConfig(
  base,
  defineConfig({
    test: {
      sequence: { sequencer: QuickKillFirst },
      env: { FUZZ_RUNS: '40' },
      exclude: [
        'tests/e2e/**',
        'tests/integration/scripts/**',
        'tests/integration/infra/serverless-package.test.ts',
        'tests/integration/infra/operations-template.test.ts',
        'tests/integration/bench/**',
        '**/node_modules/**',
      ],
    },
  }),
);
