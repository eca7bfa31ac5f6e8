/**
 * `kpi-push`: push KPI measurements from a file or stdin, for cron jobs and CI.
 * bin/kpi-push.cjs runs this file; `--help` (HELP below) is its manual; ./push.ts runs the push.
 */
import { parseArgs } from 'node:util';
import { MAX_BATCH_SIZE } from '../../lib/push/measurement-schema';
import { version } from '../../package.json';
import { FORMATS, type Format } from './input';
import { DEFAULTS, EXIT, NotSent, type PushSettings, printable, push, type Report, summary } from './push';

export { DEFAULTS, EXIT };

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
  --delimiter CHAR     the CSV's field separator (default ,), e.g. ';' for a spreadsheet's export
  --batch-size N       measurements per request, 1 to ${MAX_BATCH_SIZE} (default ${DEFAULTS.batchSize})
  --max-tries N        attempts per batch before giving up (default ${DEFAULTS.maxTries})
  --max-time SECONDS   no retry wait starts after this much time (default ${DEFAULTS.maxTimeSeconds})
  --dry-run            ask the service to check everything and store nothing (?dryRun=true);
                       refused, with nothing sent, if the service does not offer it
  --skip-invalid       when the service refuses a batch for rows it names, send that batch's other
                       rows again without them; the run still exits 4 (the named rows are not stored)
  --json               print a machine-readable report on stdout instead of text
  --verbose            log every request and wait to stderr (never the key)
  -h, --help           this text
  --version            the version

Retries: 429 waits for Retry-After; 502, 503, 504 and network errors are retried with exponential
backoff and jitter; other answers are final (another 4xx cannot succeed by repeating it). A refused
connection before the service ever answered is a wrong URL, not an outage: exit 2 at once.

Reruns are safe: a measurement is stored per KPI and period, so sending the same rows again replaces
them instead of adding duplicates. After a partial failure, run the same command again.

Exit codes:
  0  every row stored (with --dry-run: every row passed the service's checks)
  2  usage: bad option, missing URL or key, unreadable file, a URL that is not the
     service's (e.g. without /api) or where nothing listens (connection refused on the
     first request), dry run not offered; nothing sent
  3  invalid input: problems listed by line; nothing sent
  4  rejected by the service (e.g. 401/403 key problem, 404 unknown KPI); fix and rerun
  5  gave up: the service kept failing (429/5xx) or could not be reached; rerun later
  1  internal error of kpi-push
`;

class UsageError extends Error {}

interface Settings extends Omit<PushSettings, 'userAgent'> {
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
        delimiter: { type: 'string' },
        'batch-size': { type: 'string' },
        'max-tries': { type: 'string' },
        'max-time': { type: 'string' },
        'dry-run': { type: 'boolean' },
        'skip-invalid': { type: 'boolean' },
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

  const delimiterOf = (given: string | undefined) => {
    if (given === undefined) return undefined;
    const delimiter = given === '\\t' ? '\t' : given;
    if (delimiter.length !== 1 || delimiter === '"' || delimiter === '\n' || delimiter === '\r') {
      throw new UsageError('--delimiter must be one character other than a quote or a line break, e.g. ;');
    }
    return delimiter;
  };
  const format = values.format as string | undefined;
  if (format !== undefined && !(FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`--format must be one of ${FORMATS.join(', ')}`);
  }
  return {
    file: positionals[0] === '-' ? undefined : positionals[0],
    baseUrl: url.href.replace(/\/+$/, ''),
    apiKey,
    format: format as Format | undefined,
    delimiter: delimiterOf(values.delimiter as string | undefined),
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
    skipInvalid: values['skip-invalid'] === true,
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
  const human = !settings.json;
  const progress = human && !settings.verbose && io.stderr.isTTY === true;
  /** A message on a terminal first clears the progress line it would otherwise run into. */
  const clear = () => {
    if (progress) io.stderr.write('\r\x1b[2K');
  };
  let report: Report;
  try {
    report = await push(
      { ...settings, userAgent: `kpi-push/${version}` },
      {
        readStdin: io.readStdin,
        log: settings.verbose
          ? (line: string) => say(`kpi-push: ${line.replaceAll(settings.baseUrl, printable(baseUrl))}`)
          : () => {},
        ...(human
          ? {
              say: (line: string) => {
                clear();
                say(line);
              },
            }
          : {}),
        ...(progress
          ? {
              progress: (sent: number, total: number) =>
                io.stderr.write(`\r\x1b[2Kkpi-push: ${sent} of ${total} rows sent`),
            }
          : {}),
      },
    );
  } catch (error) {
    if (!(error instanceof NotSent)) throw error;
    say(`kpi-push: ${error.message}`);
    return error.exitCode;
  }
  clear();

  if (human && report.outcome !== 'invalid-input') io.stdout.write(`kpi-push: ${summary(report)}\n`);
  if (settings.json) io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  return report.exitCode;
};
