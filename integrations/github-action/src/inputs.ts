/**
 * The action's inputs, read as the runner passes them (`INPUT_<NAME>` environment variables, through
 * @actions/core), turned into one kpi-push run. Only the combination of inputs is checked here; the
 * measurement itself goes through kpi-push's validation, the service's own rules.
 */
import * as core from '@actions/core';
import { NUMBER } from '../../../clients/kpi-push/input';
import { DEFAULTS, type PushSettings, type ReportProblem } from '../../../clients/kpi-push/push';
import { version } from '../../../package.json';

/** An input or a combination of inputs is wrong; the message names the input and the fix. */
export class InputError extends Error {}

/** The measurement field each single-value input becomes, for messages in the inputs' own names. */
export const FIELD_INPUTS = {
  kpiId: 'kpi-id',
  kpiType: 'kpi-type',
  actual: 'value',
  target: 'target',
  periodStart: 'period-start',
  periodEnd: 'period-end',
} as const;

export interface ActionRun {
  settings: PushSettings;
  /** The single measurement as kpi-push reads it (a JSON array), when `value` is given. */
  measurements: string | undefined;
}

const EXAMPLE_URL = 'https://api.example.com/api';

const baseUrlOf = (raw: string): string => {
  if (raw === '') throw new InputError(`base-url is required: the API's base URL, e.g. ${EXAMPLE_URL}`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InputError(`base-url is not a URL; it is the API's base URL, e.g. ${EXAMPLE_URL}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new InputError(`base-url must be an http(s) URL, e.g. ${EXAMPLE_URL}`);
  }
  const path = url.pathname.replace(/\/+$/, '');
  if (!path.endsWith('/api')) {
    throw new InputError(`base-url must end in /api, e.g. ${url.origin}${path}/api`);
  }
  return `${url.origin}${path}`;
};

const dryRunOf = () => {
  if (core.getInput('dry-run') === '') return false;
  try {
    return core.getBooleanInput('dry-run');
  } catch {
    throw new InputError('dry-run must be true or false');
  }
};

/** A number input as a number; other text stays text, so validation names the input. */
const numberOf = (text: string): number | string => (NUMBER.test(text) ? Number(text) : text);

/** Reads and checks every input. Throws InputError with the first problem found. */
export const readInputs = (): ActionRun => {
  const baseUrl = baseUrlOf(core.getInput('base-url'));
  const apiKey = core.getInput('api-key');
  if (apiKey === '') {
    throw new InputError(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a workflow expression, shown as written
      'api-key is empty: set it from a secret, e.g. api-key: ${{ secrets.KPI_API_KEY }}. A secret that does not exist is empty, and workflows run for pull requests from forks get no secrets',
    );
  }
  const file = core.getInput('file');
  const single = Object.fromEntries(
    Object.entries(FIELD_INPUTS).map(([field, input]) => [field, core.getInput(input)]),
  ) as Record<keyof typeof FIELD_INPUTS, string>;
  const value = single.actual;
  const dryRun = dryRunOf();

  if (value !== '' && file !== '') throw new InputError('give either value or file, not both');
  if (value === '' && file === '') {
    throw new InputError('give value (with kpi-id and kpi-type) or file (a file of measurements)');
  }
  const settings = {
    baseUrl,
    apiKey,
    dryRun,
    batchSize: DEFAULTS.batchSize,
    maxTries: DEFAULTS.maxTries,
    maxTimeSeconds: DEFAULTS.maxTimeSeconds,
    userAgent: `kpi-push-github-action/${version}`,
  };
  if (file !== '') {
    const misplaced = Object.entries(FIELD_INPUTS)
      .filter(([field]) => single[field as keyof typeof FIELD_INPUTS] !== '')
      .map(([, input]) => input);
    if (misplaced.length > 0) {
      throw new InputError(
        `${misplaced.join(', ')} ${misplaced.length === 1 ? 'applies' : 'apply'} only with value; in a file, each measurement names its own`,
      );
    }
    return { settings: { ...settings, file, format: undefined }, measurements: undefined };
  }
  if (single.kpiId === '') throw new InputError('kpi-id is required when value is given');
  if (single.kpiType === '') throw new InputError('kpi-type is required when value is given');
  const measurement = {
    kpiId: single.kpiId,
    kpiType: single.kpiType,
    actual: numberOf(value),
    ...(single.target === '' ? {} : { target: numberOf(single.target) }),
    ...(single.periodStart === '' ? {} : { periodStart: single.periodStart }),
    ...(single.periodEnd === '' ? {} : { periodEnd: single.periodEnd }),
  };
  return {
    settings: { ...settings, file: undefined, format: 'json' },
    measurements: JSON.stringify([measurement]),
  };
};

/**
 * A problem with a measurement in the words of the inputs that gave it: `value: must be a finite
 * number` for a single value, `kpis.csv:3: actual: …` for a line of a file.
 */
export const describeProblem = (problem: ReportProblem, file: string | undefined): string => {
  const field = problem.field
    ? file === undefined
      ? (FIELD_INPUTS[problem.field as keyof typeof FIELD_INPUTS] ?? problem.field)
      : problem.field
    : undefined;
  const where = file === undefined ? '' : `${file}:${problem.line}: `;
  return `${where}${field ? `${field}: ` : ''}${problem.message}`;
};
