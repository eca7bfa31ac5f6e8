import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type BenchResults, runBench } from '../../../bench/bench';

/**
 * Issue 11, quick mode of `npm run bench`: the built bundles, run in-process against DynamoDB Local
 * behind the counting proxy, without the timing pass. Checks the budgets that do not depend on time:
 * requests, sequential round trips, read and write units, bundle sizes.
 */
let results: BenchResults;
const outDir = `.esbuild-bench-test-${process.pid}`;
afterAll(() => rmSync(resolve(__dirname, '../../..', outDir), { recursive: true, force: true }));

const scenario = (name: string) => {
  const found = results.scenarios.find((s) => s.scenario === name);
  if (!found) throw new Error(`no scenario ${name}`);
  return found;
};

/**
 * The one function over the 100 KB budget (README "Performance"): the API reference page serves
 * Swagger UI's assets itself. `npm run bench` reports the budget as broken; here it may not grow.
 */
const OVER_BUDGET_KB: Record<string, number> = { 'api-docs': 1963 };

describe('npm run bench -- --quick', { timeout: 600_000 }, () => {
  it('runs every scenario through the built bundles', async () => {
    results = await runBench({
      operations: 0,
      warmup: 0,
      loadRuns: 0,
      timing: false,
      outDir,
    });
    expect(results.scenarios.map((s) => s.scenario)).toContain('push single, tenant cached');
    expect(results.functions.length).toBeGreaterThanOrEqual(18);
  });

  it('holds every budget that does not depend on time, except the bundle sizes listed', () => {
    const broken = results.budgets
      .filter((b) => !b.timed && !b.ok)
      .map((b) => b.name)
      .filter((name) => !Object.keys(OVER_BUDGET_KB).some((fn) => name === `${fn}: bundle KB (minified)`));
    expect(broken).toEqual([]);
  });

  it('the functions over the size budget do not grow', () => {
    for (const [fn, kb] of Object.entries(OVER_BUDGET_KB)) {
      const f = results.functions.find((x) => x.function === fn);
      expect(f?.bytes, fn).toBeLessThanOrEqual(kb * 1000);
    }
  });

  it('push: round trips and units at the floor of issue 10', () => {
    expect(scenario('push single, tenant cached')).toMatchObject({
      requests: 4,
      roundTrips: 2,
      readUnits: 2,
      writeUnits: 3,
    });
    expect(scenario('push batch of 50, 50 KPIs of mixed types')).toMatchObject({
      roundTrips: 2,
      writeUnits: 52,
    });
    expect(scenario('push refused: unknown key')).toMatchObject({
      requests: 1,
      roundTrips: 1,
      writeUnits: 0,
    });
    expect(scenario('push refused: malformed key')).toMatchObject({ requests: 0, writeUnits: 0 });
  });

  it('creating a key costs the same with 0 and 300 active keys', () => {
    const empty = scenario('create API key, 0 keys before');
    const crowded = scenario('create API key, 300 active keys');
    expect(crowded).toMatchObject({ requests: empty.requests, roundTrips: 2, writeUnits: empty.writeUnits });
    expect(crowded.writeUnits).toBeLessThanOrEqual(2);
  });

  it('one round trip for refresh and the strategic cycles', () => {
    expect(scenario('refresh').roundTrips).toBe(1);
    expect(scenario('strategic cycles').roundTrips).toBe(1);
  });
});
