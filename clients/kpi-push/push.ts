/**
 * One push run of `kpi-push`: read, check every row, check the base URL, send in batches with
 * retries, and report. The CLI (./main.ts) and the GitHub Action (integrations/github-action) both run
 * this, so a push from CI behaves exactly as one from a cron job; each only renders the report.
 */
import { readFileSync } from 'node:fs';
import { connectionFailureOf, errorCode } from '../../lib/egress/connection-failures';
import { MAX_BATCH_SIZE } from '../../lib/push/measurement-schema';
import { type BatchOutcome, type Problem, sendBatch } from './client';
import { detectFormat, type Format, type InputProblem, parseMeasurements } from './input';
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

/** The run stopped before sending anything; `message` says why and what to fix. */
export class NotSent extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.USAGE,
  ) {
    super(message);
  }
}

export interface PushSettings {
  /** The file to read; undefined: `readStdin`. */
  file: string | undefined;
  /** Base URL including `/api`, without a trailing slash. */
  baseUrl: string;
  apiKey: string;
  format: Format | undefined;
  /** The CSV's field separator; default `,`. */
  delimiter?: string;
  batchSize: number;
  maxTries: number;
  maxTimeSeconds: number;
  dryRun: boolean;
  /**
   * After a batch is refused for rows the service names, send the batch's other rows again without
   * them (once). The run still exits 4: the named rows are not stored.
   */
  skipInvalid?: boolean;
  userAgent: string;
}

export interface PushHooks {
  readStdin: () => string | undefined;
  /** Every request and wait (`--verbose`); never given the key. */
  log: (line: string) => void;
  /** Human messages as they happen (problems, refused batches); absent for a machine-readable run. */
  say?: (line: string) => void;
  /** Rows sent so far, before each batch and at the end (a terminal's progress line). */
  progress?: (sent: number, total: number) => void;
}

export interface BatchReport {
  firstLine: number;
  lastLine: number;
  rows: number;
  outcome: 'stored' | 'rejected' | 'gave-up' | 'not-sent';
  status?: number;
  attempts?: number;
  problemType?: string;
  title?: string;
  detail?: string;
  requestId?: string;
  /** With --skip-invalid: the batch's rows the service did not name, sent again without the others. */
  resent?: { rows: number; outcome: 'stored' | 'rejected' | 'gave-up'; status?: number };
}

export interface ReportProblem extends InputProblem {
  source: 'input' | 'service';
}

export interface Report {
  outcome: 'stored' | 'invalid-input' | 'rejected' | 'gave-up';
  exitCode: number;
  dryRun: boolean;
  rows: number;
  created: number;
  updated: number;
  stored: number;
  rejected: number;
  notSent: number;
  retries: number;
  problems: ReportProblem[];
  batches: BatchReport[];
}

/** A URL for messages: without user info or query, which may hold secrets. */
export const printable = (url: URL) => `${url.origin}${url.pathname}`;

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

/** Line numbers for a message: `line 4`, `lines 4-6`, `lines 2, 4-6 and 9`. */
export const linesText = (lines: number[]): string => {
  const sorted = [...new Set(lines)].sort((a, b) => a - b);
  const spans: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === (sorted[j] as number) + 1) j++;
    spans.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  const list = spans.length > 1 ? `${spans.slice(0, -1).join(', ')} and ${spans.at(-1)}` : (spans[0] ?? '');
  return `${sorted.length === 1 ? 'line' : 'lines'} ${list}`;
};

/**
 * Runs one push and reports it. Throws NotSent when the run stops before sending anything (unreadable
 * input, a base URL that is not the service's, dry run not offered).
 */
export const push = async (settings: PushSettings, hooks: PushHooks): Promise<Report> => {
  const { log, say } = hooks;
  const baseUrl = new URL(settings.baseUrl);

  // Read everything first.
  const source = settings.file ?? '<stdin>';
  let text: string | undefined;
  try {
    text = settings.file === undefined ? hooks.readStdin() : readFileSync(settings.file, 'utf8');
  } catch (error) {
    throw new NotSent(
      `cannot read ${source}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  if (text === undefined) {
    throw new NotSent('no input: give a FILE or pipe measurements to stdin. See kpi-push --help.');
  }
  const format = settings.format ?? detectFormat(settings.file, text);
  const parsed = parseMeasurements(text, format, settings.delimiter);
  const validated = validateRows(parsed.rows);
  const inputProblems: ReportProblem[] = [...parsed.problems, ...validated.problems]
    .sort((a, b) => a.line - b.line)
    .map((problem) => ({ ...problem, source: 'input' }));

  const report: Report = {
    outcome: 'stored',
    exitCode: EXIT.OK,
    dryRun: settings.dryRun,
    rows: parsed.rows.length,
    created: 0,
    updated: 0,
    stored: 0,
    rejected: 0,
    notSent: 0,
    retries: 0,
    problems: inputProblems,
    batches: [],
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
    if (say) {
      for (const problem of inputProblems) say(describe(problem));
      const badLines = new Set(inputProblems.map((problem) => problem.line)).size;
      say(
        inputProblems.length === 0
          ? `kpi-push: ${source} holds no measurements; nothing was sent.`
          : `kpi-push: ${inputProblems.length} problem(s) on ${badLines} line(s) of ${source}; nothing was sent.`,
      );
    }
    return report;
  }

  const misconfigured = await checkBaseUrl(baseUrl, log);
  if (misconfigured) throw new NotSent(`${misconfigured}; nothing was sent.`);
  if (settings.dryRun) {
    const supported = await dryRunSupported(settings.baseUrl, log);
    if (supported !== true) {
      throw new NotSent(
        `${supported.reason}; nothing was sent.`,
        supported.retryable ? EXIT.GAVE_UP : EXIT.USAGE,
      );
    }
  }

  const deadline = Date.now() + settings.maxTimeSeconds * 1000;
  const batches: ValidRow[][] = [];
  for (let i = 0; i < validated.valid.length; i += settings.batchSize) {
    batches.push(validated.valid.slice(i, i + settings.batchSize));
  }
  const total = validated.valid.length;
  let sent = 0;
  let stop = false;
  for (const [index, rows] of batches.entries()) {
    const lines = { firstLine: rows[0]?.line ?? 0, lastLine: rows.at(-1)?.line ?? 0, rows: rows.length };
    if (stop) {
      report.batches.push({ ...lines, outcome: 'not-sent' });
      report.notSent += rows.length;
      continue;
    }
    hooks.progress?.(sent, total);
    const send = (batch: ValidRow[]): Promise<BatchOutcome> =>
      sendBatch(
        {
          baseUrl: settings.baseUrl,
          apiKey: settings.apiKey,
          dryRun: settings.dryRun,
          maxTries: settings.maxTries,
          deadline,
          userAgent: settings.userAgent,
          log: (line) => log(`batch ${index + 1}/${batches.length}: ${line}`),
          onRetry: () => {
            report.retries++;
          },
        },
        batch.map((row) => row.measurement),
      );
    const stored = (batch: ValidRow[], outcome: Extract<BatchOutcome, { kind: 'stored' }>) => {
      sent += batch.length;
      report.stored += batch.length;
      report.created += outcome.results.filter((r) => r === 'created').length;
      report.updated += outcome.results.filter((r) => r === 'updated').length;
    };
    const outcome = await send(rows);
    const range =
      lines.firstLine === lines.lastLine
        ? `line ${lines.firstLine}`
        : `lines ${lines.firstLine}-${lines.lastLine}`;
    if (outcome.kind === 'stored') {
      stored(rows, outcome);
      report.batches.push({
        ...lines,
        outcome: 'stored',
        status: outcome.status,
        attempts: outcome.attempts,
      });
    } else if (outcome.kind === 'rejected') {
      const { problem, status } = outcome;
      const located = lineProblems(rows, problem);
      report.problems.push(...located);
      const batchReport: BatchReport = {
        ...lines,
        outcome: 'rejected',
        status,
        attempts: outcome.attempts,
        ...(problem?.type ? { problemType: problem.type } : {}),
        ...(problem?.title ? { title: problem.title } : {}),
        ...(problem?.detail ? { detail: problem.detail } : {}),
        ...(problem?.requestId ? { requestId: problem.requestId } : {}),
      };
      report.batches.push(batchReport);
      // A key or tenant problem (or a server bug) fails every batch alike: stop spending the budget.
      const final = status === 401 || status === 403 || status >= 500;
      fail(status >= 500 ? EXIT.GAVE_UP : EXIT.REJECTED);
      const named = new Set(located.map((p) => p.line));
      // Rows the service named are the refused ones; the batch's others were sound but not stored,
      // since a batch is stored whole or not at all.
      const others = named.size > 0 && !final ? rows.filter((row) => !named.has(row.line)) : [];
      const kind = slug(problem?.type) ? ` ${slug(problem?.type)}` : '';
      const why = `${status}${kind}${problem?.detail ? `: ${problem.detail}` : ''}`;
      say?.(
        named.size > 0
          ? `kpi-push: the service refused ${linesText([...named])}: ${why}`
          : `kpi-push: the rows on ${range} were not stored: ${why}`,
      );
      for (const line of located) say?.(`  ${describe(line)}`);
      if (problem?.requestId) say?.(`  request id: ${problem.requestId}`);
      let resent: BatchOutcome | undefined;
      if (others.length > 0 && settings.skipInvalid) {
        resent = await send(others);
        batchReport.resent = {
          rows: others.length,
          outcome: resent.kind,
          ...(resent.kind === 'gave-up' ? {} : { status: resent.status }),
        };
        if (resent.kind === 'rejected') report.problems.push(...lineProblems(others, resent.problem));
        say?.(
          resent.kind === 'stored'
            ? `  ${linesText(others.map((row) => row.line))} sent again without the refused rows (--skip-invalid): stored`
            : `  ${linesText(others.map((row) => row.line))} sent again without the refused rows (--skip-invalid): not stored either`,
        );
      } else if (others.length > 0) {
        say?.(
          `  ${linesText(others.map((row) => row.line))} ${others.length === 1 ? 'was' : 'were'} not stored only because a batch is all-or-nothing; --skip-invalid sends ${others.length === 1 ? 'it' : 'them'} again without the refused rows`,
        );
      }
      if (resent?.kind === 'stored') {
        stored(others, resent);
        report.rejected += rows.length - others.length;
      } else {
        report.rejected += rows.length;
        if (resent?.kind === 'gave-up') fail(EXIT.GAVE_UP);
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
      say?.(
        `kpi-push: gave up on the rows on ${range}: ${outcome.reason}. Running the same command again later is safe.`,
      );
      stop = true;
    }
  }
  hooks.progress?.(sent, total);
  report.outcome =
    report.exitCode === EXIT.OK ? 'stored' : report.exitCode === EXIT.REJECTED ? 'rejected' : 'gave-up';
  return report;
};

/** One line on what a run did, after its rows were sent: the CLI prints it, the action logs it. */
export const summary = (report: Report): string => {
  const retries = `${report.retries} ${report.retries === 1 ? 'retry' : 'retries'}`;
  const counts = report.dryRun
    ? `${report.stored} passed the service's checks (dry run: nothing stored; would create ${report.created}, update ${report.updated})`
    : `${report.created} created, ${report.updated} updated`;
  return `${report.rows} rows: ${counts}, ${report.rejected} rejected, ${report.notSent} not sent; ${retries}.`;
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
 * URL, and a host that does not exist too. So does a refused connection on this first contact: nothing
 * listens at that port (a typo'd port, or a local service that is not running), and retrying for
 * minutes would only hide that as an outage. A 429, a 5xx or a timeout prove nothing (the service may
 * be down for a moment): the push goes on, and its retries decide; so do connections refused later in
 * the run, after the service has answered once.
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
    log(`GET ${url}: ${errorCode(error) ?? (error as Error).name}`);
    const failure = connectionFailureOf(error);
    if (failure === 'dns') return `the host of ${printable(baseUrl)} does not exist`;
    if (failure === 'refused') {
      return `nothing listens at ${baseUrl.origin} (connection refused): check the URL and its port (KPI_PUSH_URL or --url), and that the service runs there`;
    }
    return undefined;
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
