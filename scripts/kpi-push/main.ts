/**
 * `kpi-push`: push KPI measurements from a file or stdin, for cron jobs and CI.
 * bin/kpi-push.cjs runs this file; `--help` (HELP below) is its manual.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { MAX_BATCH_SIZE } from '../../lib/push/measurement-schema';
import { version } from '../../package.json';
import { type BatchOutcome, type Problem, sendBatch } from './client';
import { detectFormat, FORMATS, type Format, type InputProblem, parseMeasurements } from './input';
import { type ValidRow, validateRows } from './validate';

/** What a cron wrapper or CI step can act on. When rows were both rejected and given up on, 4 wins. */
export const EXIT = {
  /** Every row is stored (or, with --dry-run, passed the service's checks). */
  OK: 0,
  /** A bug in kpi-push itself. */
  FAILED: 1,
  /**
   * Bad flags or environment, unreadable file, a base URL that is not the service's (its GET /health
   * does not answer as the service does), dry run not supported: nothing was sent.
   */
  USAGE: 2,
  /** Some rows are invalid: every problem is listed by line, and nothing was sent. */
  INVALID_INPUT: 3,
  /** The service refused rows with a 4xx other than 429 (bad key, unknown KPI, …): fix, then rerun. */
  REJECTED: 4,
  /** The service kept answering 429/502/503/504, failed with a 500, or could not be reached within
   * --max-tries/--max-time: rerunning later is safe. */
  GAVE_UP: 5,
} as const;

export const DEFAULTS = { batchSize: MAX_BATCH_SIZE, maxTries: 6, maxTimeSeconds: 600 } as const;

const HELP = `kpi-push ${version}: push KPI measurements to the strategy service.

Usage: kpi-push [options] [FILE]     (FILE "-" or no FILE: read stdin)

Input: a JSON array of measurements, NDJSON (one JSON object per line) or CSV whose header row
names the fields: ${['kpiId', 'kpiType', 'actual', 'target', 'forecast', 'periodStart', 'periodEnd'].join(',')}
(empty cell = absent). The format comes from the extension (.json, .ndjson/.jsonl, .csv) or the
first character, or --format. Every row is validated first, with the service's own rules; if any is
invalid, all problems are listed with their line numbers and nothing is sent.

Options:
  --url URL            base URL of the API, ending in /api, e.g. https://api.example.com/api
                       (checked with GET /health before anything is sent)   [env KPI_PUSH_URL]
  --api-key KEY        API key (x-api-key). Prefer the environment: a flag shows in the
                       process list                                         [env KPI_PUSH_API_KEY]
  --format FORMAT      json, ndjson or csv
  --batch-size N       measurements per request, 1 to ${MAX_BATCH_SIZE} (default ${DEFAULTS.batchSize})
  --max-tries N        attempts per batch before giving up (default ${DEFAULTS.maxTries})
  --max-time SECONDS   no retry wait starts after this much time (default ${DEFAULTS.maxTimeSeconds})
  --dry-run            ask the service to check everything and store nothing (?dryRun=true);
                       refused, with nothing sent, if the service does not offer it
  --json               print a machine-readable report on stdout instead of text
  --verbose            log every request and wait to stderr (never the key)
  -h, --help           this text
  --version            the version

Retries: 429 waits for Retry-After; 502, 503, 504 and network errors are retried with exponential
backoff and jitter; other answers are final (another 4xx cannot succeed by repeating it).

Reruns are safe: a measurement is stored per KPI and period, so sending the same rows again replaces
them instead of adding duplicates. After a partial failure, run the same command again.

Exit codes:
  0  every row stored (with --dry-run: every row passed the service's checks)
  2  usage: bad option, missing URL or key, unreadable file, a URL that is not the
     service's (e.g. without /api), dry run not offered; nothing sent
  3  invalid input: problems listed by line; nothing sent
  4  rejected by the service (e.g. 401/403 key problem, 404 unknown KPI); fix and rerun
  5  gave up: the service kept failing (429/5xx) or could not be reached; rerun later
  1  internal error of kpi-push
`;

class UsageError extends Error {}

interface Settings {
  file: string | undefined;
  baseUrl: string;
  apiKey: string;
  format: Format | undefined;
  batchSize: number;
  maxTries: number;
  maxTimeSeconds: number;
  dryRun: boolean;
  json: boolean;
  verbose: boolean;
}

const positiveInt = (
  name: string,
  raw: string | undefined,
  fallback: number,
  max = Number.MAX_SAFE_INTEGER,
) => {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < 1 || value > max) {
    throw new UsageError(
      `--${name} must be a whole number from 1 to ${max === Number.MAX_SAFE_INTEGER ? '…' : max}`,
    );
  }
  return value;
};

/** A URL for messages: without user info or query, which may hold secrets. */
const printable = (url: URL) => `${url.origin}${url.pathname}`;

const parseSettings = (argv: string[], env: NodeJS.ProcessEnv): Settings | 'help' | 'version' => {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        url: { type: 'string' },
        'api-key': { type: 'string' },
        format: { type: 'string' },
        'batch-size': { type: 'string' },
        'max-tries': { type: 'string' },
        'max-time': { type: 'string' },
        'dry-run': { type: 'boolean' },
        json: { type: 'boolean' },
        verbose: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
      },
    });
  } catch (error) {
    // Node's message names the option only, never a value (which could be the key).
    throw new UsageError(String((error as Error).message).split('.')[0] ?? 'invalid arguments');
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  if (values.version) return 'version';
  if (positionals.length > 1) throw new UsageError('give at most one FILE');

  const rawUrl = (values.url as string | undefined) ?? env.KPI_PUSH_URL;
  if (!rawUrl) throw new UsageError('no base URL: set KPI_PUSH_URL or pass --url');
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new UsageError('the base URL is not a URL, e.g. https://api.example.com/api');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new UsageError('the base URL must be http(s)');
  const apiKey = (values['api-key'] as string | undefined) ?? env.KPI_PUSH_API_KEY;
  if (!apiKey) throw new UsageError('no API key: set KPI_PUSH_API_KEY or pass --api-key');

  const format = values.format as string | undefined;
  if (format !== undefined && !(FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`--format must be one of ${FORMATS.join(', ')}`);
  }
  return {
    file: positionals[0] === '-' ? undefined : positionals[0],
    baseUrl: url.href.replace(/\/+$/, ''),
    apiKey,
    format: format as Format | undefined,
    batchSize: positiveInt(
      'batch-size',
      values['batch-size'] as string | undefined,
      DEFAULTS.batchSize,
      MAX_BATCH_SIZE,
    ),
    maxTries: positiveInt('max-tries', values['max-tries'] as string | undefined, DEFAULTS.maxTries, 100),
    maxTimeSeconds: positiveInt(
      'max-time',
      values['max-time'] as string | undefined,
      DEFAULTS.maxTimeSeconds,
    ),
    dryRun: values['dry-run'] === true,
    json: values.json === true,
    verbose: values.verbose === true,
  };
};

export interface Io {
  argv: string[];
  env: NodeJS.ProcessEnv;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  readStdin: () => string | undefined;
}

interface BatchReport {
  firstLine: number;
  lastLine: number;
  rows: number;
  outcome: 'stored' | 'rejected' | 'gave-up' | 'not-sent';
  status?: number;
  attempts?: number;
  problemType?: string;
  detail?: string;
  requestId?: string;
}

interface ReportProblem extends InputProblem {
  source: 'input' | 'service';
}

/** Service problems of a rejected batch, placed on the lines of the rows they concern. */
const lineProblems = (rows: ValidRow[], problem: Problem | undefined): ReportProblem[] => {
  const fromErrors = (problem?.errors ?? []).flatMap(({ path, message }) => {
    const match = /^measurements\[(\d+)\]\.?(.*)$/.exec(path);
    const row = match ? rows[Number(match[1])] : undefined;
    return row
      ? [{ line: row.line, source: 'service' as const, message, ...(match?.[2] ? { field: match[2] } : {}) }]
      : [];
  });
  const missing = new Set(problem?.missingKpiIds ?? []);
  const fromMissing = rows
    .filter((row) => missing.has(row.measurement.kpiId))
    .map((row) => ({
      line: row.line,
      source: 'service' as const,
      field: 'kpiId',
      message: 'not a KPI of this organization with this kpiType',
    }));
  return [...fromErrors, ...fromMissing];
};

const slug = (type: string | undefined) => type?.split('/').pop();

export const run = async (io: Io): Promise<number> => {
  const say = (line: string) => io.stderr.write(`${line}\n`);
  let settings: Settings;
  try {
    const parsed = parseSettings(io.argv, io.env);
    if (parsed === 'help') {
      io.stdout.write(HELP);
      return EXIT.OK;
    }
    if (parsed === 'version') {
      io.stdout.write(`${version}\n`);
      return EXIT.OK;
    }
    settings = parsed;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    say(`kpi-push: ${error.message}. See kpi-push --help.`);
    return EXIT.USAGE;
  }
  const baseUrl = new URL(settings.baseUrl);
  const log = settings.verbose
    ? (line: string) => say(`kpi-push: ${line.replaceAll(settings.baseUrl, printable(baseUrl))}`)
    : () => {};
  const human = !settings.json;

  // Read everything first.
  const source = settings.file ?? '<stdin>';
  let text: string | undefined;
  try {
    text = settings.file === undefined ? io.readStdin() : readFileSync(settings.file, 'utf8');
  } catch (error) {
    say(
      `kpi-push: cannot read ${source}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
    return EXIT.USAGE;
  }
  if (text === undefined) {
    say('kpi-push: no input: give a FILE or pipe measurements to stdin. See kpi-push --help.');
    return EXIT.USAGE;
  }
  const format = settings.format ?? detectFormat(settings.file, text);
  const parsed = parseMeasurements(text, format);
  const validated = validateRows(parsed.rows);
  const inputProblems: ReportProblem[] = [...parsed.problems, ...validated.problems]
    .sort((a, b) => a.line - b.line)
    .map((problem) => ({ ...problem, source: 'input' }));

  const report = {
    outcome: 'stored' as 'stored' | 'invalid-input' | 'rejected' | 'gave-up',
    exitCode: EXIT.OK as number,
    dryRun: settings.dryRun,
    rows: parsed.rows.length,
    created: 0,
    updated: 0,
    stored: 0,
    rejected: 0,
    notSent: 0,
    retries: 0,
    problems: inputProblems,
    batches: [] as BatchReport[],
  };
  const finish = (): number => {
    if (settings.json) io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return report.exitCode;
  };
  /** Rejected (4) needs a person and outranks gave up (5), which a later rerun may fix. */
  const fail = (code: number) => {
    if (report.exitCode !== EXIT.REJECTED) report.exitCode = code;
  };
  const describe = (problem: ReportProblem) =>
    `${source}:${problem.line}: ${problem.field ? `${problem.field}: ` : ''}${problem.message}`;

  if (inputProblems.length > 0 || validated.valid.length === 0) {
    report.outcome = 'invalid-input';
    report.exitCode = EXIT.INVALID_INPUT;
    report.notSent = parsed.rows.length;
    if (human) {
      for (const problem of inputProblems) say(describe(problem));
      const badLines = new Set(inputProblems.map((problem) => problem.line)).size;
      say(
        inputProblems.length === 0
          ? `kpi-push: ${source} holds no measurements; nothing was sent.`
          : `kpi-push: ${inputProblems.length} problem(s) on ${badLines} line(s) of ${source}; nothing was sent.`,
      );
    }
    return finish();
  }

  const misconfigured = await checkBaseUrl(baseUrl, log);
  if (misconfigured) {
    say(`kpi-push: ${misconfigured}; nothing was sent.`);
    return EXIT.USAGE;
  }
  if (settings.dryRun) {
    const supported = await dryRunSupported(settings.baseUrl, log);
    if (supported !== true) {
      say(`kpi-push: ${supported.reason}; nothing was sent.`);
      return supported.retryable ? EXIT.GAVE_UP : EXIT.USAGE;
    }
  }

  const deadline = Date.now() + settings.maxTimeSeconds * 1000;
  const batches: ValidRow[][] = [];
  for (let i = 0; i < validated.valid.length; i += settings.batchSize) {
    batches.push(validated.valid.slice(i, i + settings.batchSize));
  }
  const progress = human && !settings.verbose && io.stderr.isTTY === true;
  const showProgress = (sent: number) => {
    if (progress) io.stderr.write(`\r\x1b[2Kkpi-push: ${sent} of ${validated.valid.length} rows sent`);
  };
  let sent = 0;
  let stop = false;
  for (const [index, rows] of batches.entries()) {
    const lines = { firstLine: rows[0]?.line ?? 0, lastLine: rows.at(-1)?.line ?? 0, rows: rows.length };
    if (stop) {
      report.batches.push({ ...lines, outcome: 'not-sent' });
      report.notSent += rows.length;
      continue;
    }
    showProgress(sent);
    const outcome: BatchOutcome = await sendBatch(
      {
        baseUrl: settings.baseUrl,
        apiKey: settings.apiKey,
        dryRun: settings.dryRun,
        maxTries: settings.maxTries,
        deadline,
        userAgent: `kpi-push/${version}`,
        log: (line) => log(`batch ${index + 1}/${batches.length}: ${line}`),
        onRetry: () => {
          report.retries++;
        },
      },
      rows.map((row) => row.measurement),
    );
    const range =
      lines.firstLine === lines.lastLine
        ? `line ${lines.firstLine}`
        : `lines ${lines.firstLine}-${lines.lastLine}`;
    if (outcome.kind === 'stored') {
      sent += rows.length;
      report.stored += rows.length;
      report.created += outcome.results.filter((r) => r === 'created').length;
      report.updated += outcome.results.filter((r) => r === 'updated').length;
      report.batches.push({
        ...lines,
        outcome: 'stored',
        status: outcome.status,
        attempts: outcome.attempts,
      });
    } else if (outcome.kind === 'rejected') {
      const { problem, status } = outcome;
      report.rejected += rows.length;
      const located = lineProblems(rows, problem);
      report.problems.push(...located);
      report.batches.push({
        ...lines,
        outcome: 'rejected',
        status,
        attempts: outcome.attempts,
        ...(problem?.type ? { problemType: problem.type } : {}),
        ...(problem?.detail ? { detail: problem.detail } : {}),
        ...(problem?.requestId ? { requestId: problem.requestId } : {}),
      });
      // A key or tenant problem (or a server bug) fails every batch alike: stop spending the budget.
      const final = status === 401 || status === 403 || status >= 500;
      fail(status >= 500 ? EXIT.GAVE_UP : EXIT.REJECTED);
      if (human) {
        if (progress) io.stderr.write('\r\x1b[2K');
        const kind = slug(problem?.type) ? ` ${slug(problem?.type)}` : '';
        say(
          `kpi-push: the rows on ${range} were not stored: ${status}${kind}${problem?.detail ? `: ${problem.detail}` : ''}`,
        );
        for (const line of located) say(`  ${describe(line)}`);
        if (problem?.requestId) say(`  request id: ${problem.requestId}`);
      }
      stop = final;
    } else {
      report.notSent += rows.length;
      report.batches.push({
        ...lines,
        outcome: 'gave-up',
        attempts: outcome.attempts,
        detail: outcome.reason,
      });
      fail(EXIT.GAVE_UP);
      if (human) {
        if (progress) io.stderr.write('\r\x1b[2K');
        say(
          `kpi-push: gave up on the rows on ${range}: ${outcome.reason}. Running the same command again later is safe.`,
        );
      }
      stop = true;
    }
  }
  showProgress(sent);
  if (progress) io.stderr.write('\r\x1b[2K');
  report.outcome =
    report.exitCode === EXIT.OK ? 'stored' : report.exitCode === EXIT.REJECTED ? 'rejected' : 'gave-up';

  if (human) {
    const retries = `${report.retries} ${report.retries === 1 ? 'retry' : 'retries'}`;
    const counts = settings.dryRun
      ? `${report.stored} passed the service's checks (dry run: nothing stored; would create ${report.created}, update ${report.updated})`
      : `${report.created} created, ${report.updated} updated`;
    io.stdout.write(
      `kpi-push: ${validated.valid.length} rows: ${counts}, ${report.rejected} rejected, ${report.notSent} not sent; ${retries}.\n`,
    );
  }
  return finish();
};

interface ParameterObject {
  $ref?: string;
  in?: string;
  name?: string;
}

/** The little of an OpenAPI document that the dry-run check reads. */
interface OpenApiParameters {
  paths?: Record<string, Record<string, { parameters?: ParameterObject[] } | undefined> | undefined>;
  components?: { parameters?: Record<string, ParameterObject> };
}

/** Statuses after which the same request may succeed later: no proof of a wrong URL. */
const TRANSIENT = (status: number) => status === 429 || status >= 500;

/**
 * Why the base URL is not the service's, or undefined when it may be. GET <base>/health answers 200
 * `{"status":"ok"}` on the service: a 404 (say, a URL without /api) or any other answer proves a wrong
 * URL, and a host that does not exist too. A 429, a 5xx, a timeout or a refused connection prove
 * nothing (the service may be down for a moment): the push goes on, and its retries decide.
 */
const checkBaseUrl = async (baseUrl: URL, log: (line: string) => void): Promise<string | undefined> => {
  const url = `${baseUrl.href.replace(/\/+$/, '')}/health`;
  const hint = baseUrl.pathname.replace(/\/+$/, '').endsWith('/api')
    ? ''
    : ` (the base URL ends with /api, e.g. ${baseUrl.origin}/api)`;
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(30_000) });
  } catch (error) {
    const code = (error as { cause?: { code?: string } }).cause?.code;
    log(`GET ${url}: ${code ?? (error as Error).name}`);
    return code === 'ENOTFOUND' ? `the host of ${printable(baseUrl)} does not exist` : undefined;
  }
  log(`GET ${url}: ${response.status}`);
  if (TRANSIENT(response.status)) return undefined;
  const body = (await response.json().catch(() => undefined)) as { status?: unknown } | undefined;
  if (response.status === 200 && body?.status === 'ok') return undefined;
  return `${printable(baseUrl)} is not the strategy service's API: GET ${printable(baseUrl).replace(/\/+$/, '')}/health answered ${response.status}${hint}`;
};

/** Whether the service's own OpenAPI document offers `dryRun` on the batch push, or why not. */
const dryRunSupported = async (
  baseUrl: string,
  log: (line: string) => void,
): Promise<true | { reason: string; retryable: boolean }> => {
  let document: OpenApiParameters | undefined;
  const cannot = (why: string, retryable: boolean) => ({
    reason: `cannot read the service's openapi.json to check for dry run (${why})`,
    retryable,
  });
  try {
    const response = await fetch(`${baseUrl}/openapi.json`, { signal: AbortSignal.timeout(30_000) });
    log(`GET ${baseUrl}/openapi.json: ${response.status}`);
    if (!response.ok) return cannot(String(response.status), TRANSIENT(response.status));
    document = (await response.json()) as OpenApiParameters;
  } catch (error) {
    return cannot((error as Error).name, true);
  }
  const parameters = document?.paths?.['/integrations/push/measurements/batch']?.post?.parameters ?? [];
  const resolved = parameters.map((parameter) =>
    parameter.$ref ? document?.components?.parameters?.[parameter.$ref.split('/').pop() ?? ''] : parameter,
  );
  return resolved.some((parameter) => parameter?.in === 'query' && parameter?.name === 'dryRun')
    ? true
    : {
        reason: 'this service does not offer dry run yet (its openapi.json has no dryRun parameter)',
        retryable: false,
      };
};
