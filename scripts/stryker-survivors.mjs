// @ts-check
/**
 * A Stryker reporter that appends each surviving or uncovered mutant to
 * reports/mutation/<module>/survivors.txt as soon as it is known (file:line:column, mutator and
 * replacement), so the long lib/db run can be read, and its survivors worked on, while it runs.
 * Like the rest of reports/, the file is git-ignored.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { declareFactoryPlugin, PluginKind } from '@stryker-mutator/api/plugin';

const survivors = () => {
  const file = `reports/mutation/${process.env.MUTATE_MODULE ?? 'push'}/survivors.txt`;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, '');
  return {
    /** @param {Readonly<import('@stryker-mutator/api/core').MutantResult>} result */
    onMutantTested(result) {
      if (result.status !== 'Survived' && result.status !== 'NoCoverage') return;
      const { line, column } = result.location.start;
      const replacement = result.replacement.replace(/\s+/g, ' ').slice(0, 160);
      appendFileSync(
        file,
        `${relative(process.cwd(), result.fileName)}:${line}:${column} ${result.status} ${result.mutatorName}: ${replacement}\n`,
      );
    },
  };
};

export const strykerPlugins = [declareFactoryPlugin(PluginKind.Reporter, 'survivors', survivors)];
