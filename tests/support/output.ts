import { logger } from '../../lib/logger';

/**
 * Everything written to stdout and stderr (Powertools writes errors there) while `run` runs, parsed
 * as JSON lines: the Powertools log lines and the EMF metric documents. Logging and metrics
 * are turned on for the call only (the suites run with LOG_LEVEL=silent and
 * POWERTOOLS_METRICS_DISABLED=true).
 */
export const captureOutput = async <T>(run: () => Promise<T>): Promise<{ result: T; lines: any[] }> => {
  const chunks: string[] = [];
  const write = process.stdout.write;
  const writeError = process.stderr.write;
  const level = logger.getLevelName();
  const metricsDisabled = process.env.POWERTOOLS_METRICS_DISABLED;
  const capture = ((chunk: string | Uint8Array) => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  }) as typeof process.stdout.write;
  process.stdout.write = capture;
  process.stderr.write = capture;
  logger.setLogLevel('DEBUG');
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  try {
    const result = await run();
    const lines = chunks
      .join('')
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line));
    return { result, lines };
  } finally {
    process.stdout.write = write;
    process.stderr.write = writeError;
    logger.setLogLevel(level);
    process.env.POWERTOOLS_METRICS_DISABLED = metricsDisabled;
  }
};

/** The EMF documents among the lines, as `{ name, value, dimensions }`. */
export const metricsOf = (lines: any[]) =>
  lines
    .filter((line) => line._aws)
    .map((line) => {
      const [directive] = line._aws.CloudWatchMetrics;
      const name = directive.Metrics[0].Name as string;
      const dimensions = Object.fromEntries(directive.Dimensions[0].map((d: string) => [d, line[d]]));
      return { name, value: line[name] as number, dimensions, namespace: directive.Namespace as string };
    });
