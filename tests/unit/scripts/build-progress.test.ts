import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_WAIT_SECONDS,
  handlerModules,
  progressLine,
  progressOf,
  stalledMessage,
  WAIT_SETTING,
  waitSeconds,
} from '../../../scripts/local/build-progress';
import { isRouteTableLine } from '../../../scripts/local/offline-output';

/**
 * `npm start` shows how far the build of its handlers is, waits as long as that build advances, and
 * when it gives up says how long it waited, what was still building and which setting waits longer.
 */
const root = resolve(__dirname, '..', '..', '..');
const line = (event: string, entry: string, at: number) => JSON.stringify({ event, entry, at });

describe('the build progress of npm start', () => {
  it('counts one build per handler module, not per function', () => {
    expect(
      handlerModules({
        a: { handler: 'functions/list-kpis.handler' },
        b: { handler: 'functions/list-kpis.other' },
        c: { handler: 'functions/get-kpi.handler' },
        d: {},
      }),
    ).toEqual(['functions/list-kpis', 'functions/get-kpi']);
  });

  it('tells built, still building (oldest first) and the last change from the lines', () => {
    const text = [
      line('start', 'functions/a.ts', 1000),
      line('start', 'functions/b.ts', 1100),
      line('start', 'functions/c.ts', 1050),
      line('end', 'functions/a.ts', 2000),
      '{"event":"end","entry":"functions/b', // cut off mid-write
      '',
    ].join('\n');
    expect(progressOf(text, 44)).toEqual({
      total: 44,
      built: 1,
      building: ['functions/c', 'functions/b'],
      lastChangeAt: 2000,
    });
    expect(progressOf('', 3)).toEqual({ total: 3, built: 0, building: [], lastChangeAt: undefined });
  });

  it('counts a module built once however often it is rebuilt', () => {
    const text = [
      line('start', 'functions/a.ts', 1),
      line('end', 'functions/a.ts', 2),
      line('start', 'functions/a.ts', 3),
      line('end', 'functions/a.ts', 4),
    ].join('\n');
    expect(progressOf(text, 2)).toMatchObject({ built: 1, building: [], lastChangeAt: 4 });
  });

  it('prints built of total, with what is building', () => {
    expect(progressLine({ total: 44, built: 12, building: ['functions/x'], lastChangeAt: 1 })).toBe(
      'Built 12 of 44 functions (building functions/x)',
    );
    expect(progressLine({ total: 44, built: 44, building: [], lastChangeAt: 1 })).toBe(
      'Built 44 of 44 functions',
    );
  });

  it(`waits ${DEFAULT_WAIT_SECONDS} s without progress unless ${WAIT_SETTING} says otherwise`, () => {
    expect(waitSeconds({})).toBe(DEFAULT_WAIT_SECONDS);
    expect(waitSeconds({ [WAIT_SETTING]: '600' })).toBe(600);
    expect(waitSeconds({ [WAIT_SETTING]: 'soon' })).toBe(DEFAULT_WAIT_SECONDS);
    expect(waitSeconds({ [WAIT_SETTING]: '0' })).toBe(DEFAULT_WAIT_SECONDS);
  });

  it('gives up saying how long it waited, what was still building and the setting', () => {
    const message = stalledMessage({
      url: 'http://127.0.0.1:6300/',
      waitedSeconds: 512.4,
      stalledSeconds: 180,
      progress: { total: 44, built: 40, building: ['functions/a', 'functions/b'], lastChangeAt: 1 },
    });
    expect(message).toContain('http://127.0.0.1:6300/ after 512 s');
    expect(message).toContain('nothing advanced for 180 s');
    expect(message).toContain('40 of 44 functions are built; still building: functions/a, functions/b');
    expect(message).toContain(`${WAIT_SETTING}=360 npm start`);
    expect(
      stalledMessage({
        url: 'u',
        waitedSeconds: 1,
        stalledSeconds: 1,
        progress: { total: 2, built: 2, building: [], lastChangeAt: 1 },
      }),
    ).toContain('all 2 functions are built, and serverless offline has not answered since');
  });
});

describe('the build-progress esbuild plugin', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    delete process.env.BUILD_PROGRESS_FILE;
  });

  it('writes a start and an end line per build, which the start reads as progress', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'build-progress-'));
    dirs.push(dir);
    const entry = join(dir, 'handler.ts');
    writeFileSync(entry, 'export const handler = () => 1;\n');
    const file = join(dir, 'progress.jsonl');
    process.env.BUILD_PROGRESS_FILE = file;
    const plugins = require(join(root, 'scripts', 'esbuild-plugins.cjs')) as Plugin[];
    await build({ entryPoints: [entry], bundle: true, write: false, plugins, logLevel: 'silent' });
    const progress = progressOf(readFileSync(file, 'utf8'), 1);
    expect(progress).toMatchObject({ built: 1, building: [] });
    expect(
      readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((text) => JSON.parse(text).event),
    ).toEqual(['start', 'end']);
  });
});

describe("serverless-esbuild's memory", () => {
  const esbuildBlock = readFileSync(join(root, 'serverless.yml'), 'utf8').split('\n  esbuild:\n')[1]!;
  it('keeps no esbuild context per function and builds a bounded number at once', () => {
    expect(esbuildBlock).toMatch(/^ {4}skipRebuild: true$/m);
    const concurrency = Number(/^ {4}concurrency: (\d+)$/m.exec(esbuildBlock)?.[1]);
    expect(concurrency).toBeGreaterThan(0);
    expect(concurrency).toBeLessThanOrEqual(4);
  });
});

describe("what npm start shows of serverless-offline's output", () => {
  it('leaves out the route box, coloured or not, and the invoke names, and keeps everything else', () => {
    expect(isRouteTableLine('   ┌──────────────┐')).toBe(true);
    expect(isRouteTableLine('   │   GET  | http://localhost:3000/api/kpis   │')).toBe(true);
    expect(isRouteTableLine('\u001b[33m\u001b[2m   └────┘\u001b[22m\u001b[39m')).toBe(true);
    expect(isRouteTableLine('{"level":"INFO","message":"│ not a box"}')).toBe(false);
    expect(isRouteTableLine('Server ready: http://localhost:3000 🚀')).toBe(false);
    expect(isRouteTableLine('')).toBe(false);
    expect(isRouteTableLine('Function names exposed for local invocation by aws-sdk:')).toBe(true);
    expect(isRouteTableLine('   * apiDocs: strategy-service-local-apiDocs')).toBe(true);
    expect(isRouteTableLine('Scheduling [checkAlerts] cron: [*/15 * * * *]')).toBe(false);
  });
});
