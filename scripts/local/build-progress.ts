/**
 * How far `npm start`'s build is: serverless-esbuild builds one bundle per handler module, and the
 * `build-progress` esbuild plugin (scripts/esbuild-plugins.cjs) appends a JSON line to
 * BUILD_PROGRESS_FILE when each build starts and ends. The start waits as long as these lines keep
 * coming, instead of a fixed time that a loaded machine overruns.
 */

/** The setting that says how long the start waits for the build to advance. */
export const WAIT_SETTING = 'START_WAIT_SECONDS';
export const DEFAULT_WAIT_SECONDS = 180;

export interface BuildProgress {
  total: number;
  /** Handler modules whose build ended (with or without errors). */
  built: number;
  /** Started and not ended, oldest first. */
  building: string[];
  /** When the last line was written (ms since the epoch), or undefined before the first. */
  lastChangeAt: number | undefined;
}

/** The handler modules serverless-esbuild builds, one per file, from serverless.yml's functions. */
export const handlerModules = (functions: Record<string, { handler?: unknown }>): string[] => [
  ...new Set(
    Object.values(functions)
      .map(({ handler }) => (typeof handler === 'string' ? handler.slice(0, handler.lastIndexOf('.')) : ''))
      .filter((module) => module !== ''),
  ),
];

const moduleOf = (entry: string) => entry.replace(/\.[cm]?[jt]s$/, '');

/** The progress the plugin's lines (the file's text) tell; a line cut off mid-write is skipped. */
export const progressOf = (text: string, total: number): BuildProgress => {
  const building = new Map<string, number>();
  const ended = new Set<string>();
  let lastChangeAt: number | undefined;
  for (const line of text.split('\n')) {
    let event: { event?: unknown; entry?: unknown; at?: unknown };
    try {
      event = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof event.entry !== 'string' || typeof event.at !== 'number') continue;
    const module = moduleOf(event.entry);
    lastChangeAt = Math.max(lastChangeAt ?? 0, event.at);
    if (event.event === 'start') {
      building.set(module, event.at);
    } else if (event.event === 'end') {
      building.delete(module);
      ended.add(module);
    }
  }
  return {
    total,
    built: ended.size,
    building: [...building].sort(([, a], [, b]) => a - b).map(([module]) => module),
    lastChangeAt,
  };
};

/** The seconds to wait without progress: the setting's value, or the default when unset or invalid. */
export const waitSeconds = (env: NodeJS.ProcessEnv): number => {
  const value = Number(env[WAIT_SETTING]);
  return Number.isFinite(value) && value > 0 ? value : DEFAULT_WAIT_SECONDS;
};

/** One line for the terminal, e.g. "Built 12 of 44 functions (building functions/list-kpis)". */
export const progressLine = (progress: BuildProgress): string => {
  const building = progress.building.length > 0 ? ` (building ${progress.building.join(', ')})` : '';
  return `Built ${progress.built} of ${progress.total} functions${building}`;
};

/**
 * Why the start gave up: how long it waited in all and without progress, what was still building,
 * and the setting that waits longer.
 */
export const stalledMessage = (input: {
  url: string;
  waitedSeconds: number;
  stalledSeconds: number;
  progress: BuildProgress;
}): string => {
  const { url, waitedSeconds, stalledSeconds, progress } = input;
  const state =
    progress.built >= progress.total
      ? `all ${progress.total} functions are built, and serverless offline has not answered since`
      : progress.building.length > 0
        ? `${progress.built} of ${progress.total} functions are built; still building: ${progress.building.join(', ')}`
        : `${progress.built} of ${progress.total} functions are built, and no build is running`;
  return [
    `serverless offline did not answer on ${url} after ${Math.round(waitedSeconds)} s: nothing advanced for ` +
      `${Math.round(stalledSeconds)} s (${state}).`,
    `On a loaded machine, wait longer without progress with ${WAIT_SETTING}=${Math.round(stalledSeconds) * 2} npm start ` +
      `(${WAIT_SETTING} is ${Math.round(stalledSeconds)} now).`,
  ].join('\n');
};
