import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type BenchResults, runBench } from '../../../bench/bench';

/**
 * Quick mode of `npm run bench`: the built bundles (the SDK as serverless.yml deploys it), run
 * in-process against DynamoDB Local with the call recorder on each bundle's own client, without the
 * timing pass. Checks the budgets that do not depend on time: requests, sequential round trips, read
 * and write units, the size of the service's own code in each bundle.
 */
let results: BenchResults;
const outDir = `.esbuild-bench-test-${process.pid}`;
afterAll(() => rmSync(resolve(__dirname, '../../..', outDir), { recursive: true, force: true }));

const scenario = (name: string) => {
  const found = results.scenarios.find((s) => s.scenario === name);
  if (!found) throw new Error(`no scenario ${name}`);
  return found;
};

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

  it('holds every budget that does not depend on time', () => {
    const broken = results.budgets.filter((b) => !b.timed && !b.ok).map((b) => `${b.name}: ${b.measured}`);
    expect(broken).toEqual([]);
  });

  it("checks the own-code size of every function but the API reference's, which serves Swagger UI", () => {
    const sized = results.budgets
      .filter((b) => b.name.includes('own code KB'))
      .map((b) => b.name.split(':')[0]);
    expect(sized.sort()).toEqual(
      results.functions
        .map((f) => f.function)
        .filter((name) => name !== 'api-docs')
        .sort(),
    );
  });

  it('a burst of 150 concurrent pushes on one Free key: 201 and 429 only, each counted once, none past its window', () => {
    const burst = results.burst;
    if (!burst) throw new Error('no burst');
    expect(Object.keys(burst.answers).sort()).toEqual(['201', '429']);
    const counted = Object.values(burst.countedPerWindow);
    expect(counted.reduce((sum, n) => sum + n, 0)).toBe(150);
    expect(burst.answers[201]).toBe(counted.reduce((sum, n) => sum + Math.min(n, 60), 0));
    expect(burst.admittedOverLimit).toBe(0);
    expect(results.budgets.filter((b) => b.name.startsWith('burst of 150')).map((b) => b.ok)).toEqual([
      true,
      true,
    ]);
  });

  it('push: round trips and units at their floor', () => {
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
    expect(scenario('push batch of 50, 50 KPIs of mixed types').writeUnitsPerMeasurement).toBeLessThanOrEqual(
      1.04,
    );
  });

  it('creating a key costs the same with 0 and 300 active keys', () => {
    const empty = scenario('create API key, 0 keys before');
    const crowded = scenario('create API key, 300 active keys');
    expect(crowded).toMatchObject({ requests: empty.requests, roundTrips: 2, writeUnits: empty.writeUnits });
    // The key, its index entry and its audit event in one transaction: (2 + 1) × 2.
    expect(crowded.writeUnits).toBeLessThanOrEqual(6);
  });

  it('one round trip for refresh and the strategic cycles', () => {
    expect(scenario('refresh').roundTrips).toBe(1);
    expect(scenario('strategic cycles').roundTrips).toBe(1);
  });

  it('the session check costs a JWT request without cached state one strongly consistent read of 3 items, before its own', () => {
    const cached = scenario('strategic cycles');
    const uncached = scenario('strategic cycles, session not cached');
    expect(uncached).toMatchObject({
      requests: cached.requests + 1,
      roundTrips: 2,
      readUnits: cached.readUnits + 3,
      writeUnits: 0,
    });
  });
});
