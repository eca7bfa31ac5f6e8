import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseMeasurements } from '../../../clients/kpi-push/input';
import { validateRows } from '../../../clients/kpi-push/validate';
import {
  describeProblem,
  FIELD_INPUTS,
  InputError,
  readInputs,
} from '../../../integrations/github-action/src/inputs';

/**
 * The action's inputs as the runner passes them: `INPUT_` + the name in upper case, hyphens kept
 * (`INPUT_BASE-URL`). Every wrong input or combination is refused before anything is sent, with a
 * message that names the input.
 */
const root = resolve(__dirname, '..', '..', '..');
const KPI = '01a200c7-63b3-716b-93e3-65830b252eda';

/** Exactly these inputs set, as for one step. */
const withInputs = (inputs: Record<string, string>) => {
  vi.unstubAllEnvs();
  for (const [name, value] of Object.entries(inputs)) vi.stubEnv(`INPUT_${name.toUpperCase()}`, value);
};
const refusal = (inputs: Record<string, string>) => {
  withInputs(inputs);
  try {
    readInputs();
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return (error as Error).message;
  }
  throw new Error('the inputs were accepted');
};
afterEach(() => {
  vi.unstubAllEnvs();
});

/** The input names of action.yml: the keys of its `inputs:` map. */
const declaredInputs = () => {
  const yml = readFileSync(join(root, 'integrations', 'github-action', 'action.yml'), 'utf8');
  const section = yml.slice(yml.indexOf('\ninputs:\n'), yml.indexOf('\noutputs:\n'));
  return [...section.matchAll(/^ {2}([a-z-]+):$/gm)].map((match) => match[1]!);
};

const required = { 'base-url': 'https://api.example.com/api', 'api-key': 'skm_test' };
const single = { ...required, 'kpi-id': KPI, 'kpi-type': 'BSC_KPI', value: '87.5' };

describe('the action reads its inputs', () => {
  it('a value becomes one measurement, numbers as numbers, with the kpi-push defaults', () => {
    withInputs({ ...single, target: '90', 'period-start': '2026-11-01', 'period-end': '2026-11-30' });
    const run = readInputs();
    expect(JSON.parse(run.measurements!)).toEqual([
      {
        kpiId: KPI,
        kpiType: 'BSC_KPI',
        actual: 87.5,
        target: 90,
        periodStart: '2026-11-01',
        periodEnd: '2026-11-30',
      },
    ]);
    expect(run.settings).toMatchObject({
      baseUrl: 'https://api.example.com/api',
      apiKey: 'skm_test',
      file: undefined,
      format: 'json',
      dryRun: false,
      batchSize: 50,
      maxTries: 6,
      maxTimeSeconds: 600,
    });
    expect(run.settings.userAgent).toMatch(/^kpi-push-github-action\/\d+\.\d+\.\d+$/);
  });

  it('optional inputs left empty are absent from the measurement (the service picks the month)', () => {
    withInputs(single);
    expect(JSON.parse(readInputs().measurements!)).toEqual([
      { kpiId: KPI, kpiType: 'BSC_KPI', actual: 87.5 },
    ]);
  });

  it('a file is read by kpi-push, in its formats; a trailing slash of base-url is dropped', () => {
    withInputs({ ...required, 'base-url': 'https://api.example.com/stage/api/', file: 'kpis.csv' });
    const run = readInputs();
    expect(run.measurements).toBeUndefined();
    expect(run.settings).toMatchObject({
      file: 'kpis.csv',
      format: undefined,
      baseUrl: 'https://api.example.com/stage/api',
    });
  });

  it('dry-run takes the YAML booleans; empty is false', () => {
    for (const [text, dryRun] of [
      ['true', true],
      ['TRUE', true],
      ['False', false],
      ['', false],
    ] as const) {
      withInputs({ ...single, 'dry-run': text });
      expect(readInputs().settings.dryRun, text).toBe(dryRun);
    }
    expect(refusal({ ...single, 'dry-run': 'yes' })).toBe('dry-run must be true or false');
  });

  it('a value that is not a number stays text, so that validation names the input', () => {
    withInputs({ ...single, value: '87,5 %' });
    const { rows } = parseMeasurements(readInputs().measurements!, 'json');
    const { problems } = validateRows(rows);
    expect(problems.map((problem) => describeProblem({ ...problem, source: 'input' }, undefined))).toEqual([
      'value: must be a finite number',
    ]);
  });
});

describe('the action refuses wrong inputs before anything is sent', () => {
  it('base-url: required, a URL, http(s), ending in /api (with the fix)', () => {
    expect(refusal({ ...single, 'base-url': '' })).toBe(
      "base-url is required: the API's base URL, e.g. https://api.example.com/api",
    );
    expect(refusal({ ...single, 'base-url': 'api.example.com/api' })).toBe(
      "base-url is not a URL; it is the API's base URL, e.g. https://api.example.com/api",
    );
    expect(refusal({ ...single, 'base-url': 'ftp://api.example.com/api' })).toBe(
      'base-url must be an http(s) URL, e.g. https://api.example.com/api',
    );
    expect(refusal({ ...single, 'base-url': 'https://api.example.com/prod/' })).toBe(
      'base-url must end in /api, e.g. https://api.example.com/prod/api',
    );
  });

  it('api-key: an empty one (a missing secret) says where it comes from', () => {
    expect(refusal({ ...single, 'api-key': '' })).toMatch(
      /^api-key is empty: set it from a secret, e\.g\. api-key: \$\{\{ secrets\.KPI_API_KEY \}\}\./,
    );
  });

  it('value or file: one of them, not both', () => {
    expect(refusal({ ...single, file: 'kpis.csv' })).toBe('give either value or file, not both');
    expect(refusal(required)).toBe('give value (with kpi-id and kpi-type) or file (a file of measurements)');
  });

  it('a value needs its KPI: kpi-id and kpi-type', () => {
    expect(refusal({ ...single, 'kpi-id': '' })).toBe('kpi-id is required when value is given');
    expect(refusal({ ...single, 'kpi-type': '' })).toBe('kpi-type is required when value is given');
  });

  it('the single-value inputs do not apply to a file, rather than being ignored', () => {
    expect(refusal({ ...required, file: 'kpis.csv', 'kpi-id': KPI, target: '90' })).toBe(
      'kpi-id, target apply only with value; in a file, each measurement names its own',
    );
    expect(refusal({ ...required, file: 'kpis.csv', 'period-start': '2026-11-01' })).toBe(
      'period-start applies only with value; in a file, each measurement names its own',
    );
  });
});

describe('problems in the inputs’ words', () => {
  it('a single value’s fields are named by their inputs; a file’s by line and field', () => {
    const problem = {
      line: 1,
      field: 'actual',
      message: 'must be a finite number',
      source: 'input' as const,
    };
    expect(describeProblem(problem, undefined)).toBe('value: must be a finite number');
    expect(describeProblem({ ...problem, field: 'periodStart' }, undefined)).toMatch(/^period-start: /);
    expect(describeProblem({ ...problem, line: 3 }, 'kpis.csv')).toBe(
      'kpis.csv:3: actual: must be a finite number',
    );
    expect(describeProblem({ line: 2, message: 'not valid JSON', source: 'input' }, 'm.json')).toBe(
      'm.json:2: not valid JSON',
    );
  });

  it('action.yml declares exactly the inputs the action reads', () => {
    expect(declaredInputs().sort()).toEqual(
      ['base-url', 'api-key', 'file', 'dry-run', ...Object.values(FIELD_INPUTS)].sort(),
    );
  });

  it('the documented workflows give the action declared inputs only, and the required ones', () => {
    const declared = declaredInputs();
    for (const page of ['docs/integration.md', 'integrations/github-action/README.md']) {
      const text = readFileSync(join(root, page), 'utf8');
      const uses = [
        ...text.matchAll(/uses: \S+\/integrations\/github-action@.*\n\s+with:\n((?:\s+[\w-]+: .*\n)+)/g),
      ];
      expect(uses, page).toHaveLength(1);
      const given = [...uses[0]![1]!.matchAll(/^\s+([\w-]+):/gm)].map((match) => match[1]!);
      for (const input of given) expect(declared, `${page}: ${input}`).toContain(input);
      expect(given, page).toEqual(expect.arrayContaining(['base-url', 'api-key']));
    }
  });
});
