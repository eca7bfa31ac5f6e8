import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Runs tests/e2e/secrets-in-logs.test.ts last: it searches the log of the whole end-to-end run. */
class LogSearchLast extends BaseSequencer {
  override async sort(files: TestSpecification[]) {
    const sorted = await super.sort(files);
    const last = (file: TestSpecification) => file.moduleId.endsWith('secrets-in-logs.test.ts');
    return [...sorted.filter((file) => !last(file)), ...sorted.filter(last)];
  }
}

// The AWS SDK warns about Node 20 at load time, also in global setups; the warning is known (docs/development.md).
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/**
 * Three projects, one `vitest run`:
 * - unit: pure functions, no I/O;
 * - integration: handlers invoked in-process against DynamoDB Local (one JVM for the run, one table per file);
 * - e2e: the real local stack (`scripts/start.ts`: DynamoDB Local + serverless-offline) over HTTP.
 * Every server a test starts binds free ports, so a developer's `npm start` may keep running.
 */
export default defineConfig({
  test: {
    sequence: { sequencer: LogSearchLast },
    // Generous: the machine is shared (2 cores) and a login costs one scrypt, so a loaded run can take
    // ten times longer than an idle one. No test asserts time (tests that do not flake).
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // Quiet suites: no log lines (Powertools Logger) and no EMF metric lines; tests that check them turn
    // them on for themselves (tests/support/output.ts).
    env: {
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      LOG_LEVEL: 'silent',
      POWERTOOLS_METRICS_DISABLED: 'true',
    },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['tests/unit/**/*.test.ts'],
          // Route modules build their handlers at load, as a Lambda does at cold start: the unit tests
          // that read their declarations give them a configuration that no test uses (no table is read).
          env: { TABLE_NAME: 'unit-tests', JWT_SECRET: 'unit-tests-read-routes-and-never-sign-tokens' },
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['tests/integration/**/*.test.ts'],
          globalSetup: [
            'tests/support/dynamodb-global-setup.ts',
            'tests/support/password-global-setup.ts',
            'tests/support/github-keys-global-setup.ts',
          ],
          setupFiles: ['tests/support/integration-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          globalSetup: ['tests/support/local-stack-global-setup.ts'],
          fileParallelism: false,
        },
      },
    ],
  },
});
