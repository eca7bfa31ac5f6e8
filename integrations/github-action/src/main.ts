/**
 * The GitHub Action's entry point (action.yml `main`: dist/index.cjs, built by `npm run build:action`).
 * The inputs become one kpi-push run (clients/kpi-push/push.ts); its report becomes the step's
 * outputs, log lines and error annotations.
 */
import * as core from '@actions/core';
import { type BatchReport, EXIT, NotSent, push, type Report, summary } from '../../../clients/kpi-push/push';
import { type ActionRun, describeProblem, InputError, readInputs } from './inputs';

const fail = (message: string, exitCode: number) => {
  core.setOutput('exit-code', exitCode);
  core.setFailed(message);
  // kpi-push's exit codes, so that a script reading the step's result tells "rerun later" (5) from "fix".
  process.exitCode = exitCode;
};

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** What happened to one batch that was not stored, in the API's words (problem+json title and detail). */
const batchMessage = (batch: BatchReport, file: string | undefined) => {
  const what = `${plural(batch.rows, 'measurement')}${file === undefined ? '' : ` on lines ${batch.firstLine}-${batch.lastLine} of ${file}`}`;
  if (batch.outcome === 'gave-up') {
    return `gave up on ${what}: ${batch.detail}. Running the job again later is safe: a push replaces the value of its KPI and period`;
  }
  const slug = batch.problemType?.split('/').pop();
  const title = [batch.title, slug && `(${slug})`].filter(Boolean).join(' ');
  return [
    `the service refused ${what}: ${batch.status}${title ? ` ${title}` : ''}`,
    batch.detail && `: ${batch.detail}`,
    batch.requestId && ` (request id ${batch.requestId})`,
  ]
    .filter(Boolean)
    .join('');
};

/** The failure of a run that sent rows or found them invalid, with every problem named. */
const failure = (report: Report, file: string | undefined): string => {
  const problems = report.problems.map((problem) => describeProblem(problem, file));
  if (file !== undefined) {
    // Each problem as an annotation on its line of the file, shown in the workflow run and the diff.
    for (const [index, problem] of report.problems.entries()) {
      core.error(problems[index] ?? problem.message, { file, startLine: problem.line });
    }
  }
  const lines =
    report.outcome === 'invalid-input'
      ? [
          report.problems.length === 0
            ? `${file} holds no measurements; nothing was sent`
            : `${plural(report.problems.length, 'problem')} in ${file ?? 'the measurement'}; nothing was sent`,
        ]
      : report.batches
          .filter((batch) => batch.outcome === 'rejected' || batch.outcome === 'gave-up')
          .map((batch) => batchMessage(batch, file));
  return [...lines, ...(file === undefined ? problems : [])].join('\n');
};

export const main = async (): Promise<void> => {
  // Masked before anything else runs, so that no later line, ours or a library's, can show the key.
  const apiKey = core.getInput('api-key');
  if (apiKey !== '') core.setSecret(apiKey);

  let run: ActionRun;
  try {
    run = readInputs();
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    fail(error.message, EXIT.USAGE);
    return;
  }
  let report: Report;
  try {
    report = await push(run.settings, {
      readStdin: () => run.measurements,
      // Shown when the run is re-run with debug logging; the key is in a header, never in a line.
      log: (line) => core.debug(line),
    });
  } catch (error) {
    if (!(error instanceof NotSent)) throw error;
    fail(error.message, error.exitCode);
    return;
  }
  core.setOutput('count', report.stored);
  core.setOutput('created', report.created);
  core.setOutput('updated', report.updated);
  if (report.outcome !== 'invalid-input') core.info(`kpi-push: ${summary(report)}`);
  if (report.exitCode !== EXIT.OK) {
    fail(failure(report, run.settings.file), report.exitCode);
    return;
  }
  core.setOutput('exit-code', EXIT.OK);
};

main().catch((error: unknown) => {
  // A fault of the action itself; its stack names no input, so no value (and never the key) is shown.
  fail(`internal error: ${error instanceof Error ? error.stack : String(error)}`, EXIT.FAILED);
});
