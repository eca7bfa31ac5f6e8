/**
 * Structured JSON logs for CloudWatch. Callers pass explicit fields; nothing logs request headers or
 * bodies wholesale, because those carry passwords, tokens and API keys.
 */
type Level = 'debug' | 'info' | 'warn' | 'error';
const order: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** LOG_LEVEL: debug, info (default), warn, error, or silent (tests). */
const threshold = (): number => {
  const configured = (process.env.LOG_LEVEL ?? 'info').toLowerCase();
  if (configured === 'silent') return Number.POSITIVE_INFINITY;
  return order[configured as Level] ?? order.info;
};

const write = (level: Level, message: string, fields: Record<string, unknown>) => {
  if (order[level] < threshold()) return;
  const line = JSON.stringify({ level, message, timestamp: new Date().toISOString(), ...fields });
  if (level === 'error' || level === 'warn') console.error(line);
  else console.log(line);
};

export const logger = {
  debug: (message: string, fields: Record<string, unknown> = {}) => write('debug', message, fields),
  info: (message: string, fields: Record<string, unknown> = {}) => write('info', message, fields),
  warn: (message: string, fields: Record<string, unknown> = {}) => write('warn', message, fields),
  error: (message: string, fields: Record<string, unknown> = {}) => write('error', message, fields),
};

/** Error fields safe to log: name, message and stack, without request data. */
export const describeError = (error: unknown): Record<string, unknown> =>
  error instanceof Error
    ? { errorName: error.name, errorMessage: error.message, stack: error.stack }
    : { errorName: typeof error };
