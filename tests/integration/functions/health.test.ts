import { describe, expect, it } from 'vitest';
import { handler } from '../../../functions/health';
import { probeTable } from '../../../lib/db/health';
import { keys } from '../../../lib/db/keys';
import { AppError } from '../../../lib/errors';
import { createHealthCheck } from '../../../lib/health';
import { problemResponse } from '../../../lib/http/middleware';
import { invoke } from '../../support/events';
import { db } from '../../support/fixtures';
import { instrument } from '../../support/instrumented-db';

/** GET /health: what it reads, how often, and what a failure shows. */
describe('GET /health', () => {
  it('answers 200 {"status":"ok"} without authentication', async () => {
    const response = await invoke(handler, { path: '/api/health' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ok' });
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('reads one item, eventually consistent, at a key of its own: half a read unit', async () => {
    const probe = instrument(db);
    await probeTable(probe.db);
    expect(probe.calls.map((call) => call.command)).toEqual(['GetItemCommand']);
    expect(probe.calls[0]!.input).toMatchObject({ TableName: db.tableName, Key: keys.healthProbe() });
    expect(probe.calls[0]!.input.ConsistentRead).toBeUndefined();
    expect(probe.capacity()).toEqual({ read: 0.5, write: 0 });
  });

  it('reuses a good answer for 10 s per container, then reads again', async () => {
    let now = 1_000_000;
    const probe = instrument(db);
    const check = createHealthCheck({ probe: () => probeTable(probe.db), now: () => now });
    for (let i = 0; i < 50; i++) await check();
    expect(probe.calls).toHaveLength(1);
    now += 9_999;
    await check();
    expect(probe.calls).toHaveLength(1);
    now += 1;
    await check();
    expect(probe.calls).toHaveLength(2);
  });

  it('a failing table is 503 service-unavailable with Retry-After, not reused, and shows no internals', async () => {
    let failing = true;
    const probe = instrument(db, () => {
      if (failing)
        throw Object.assign(new Error('connect ECONNREFUSED 10.0.3.7:443 table prod-secret'), {
          code: 'ECONNREFUSED',
        });
      return undefined;
    });
    const check = createHealthCheck({ probe: () => probeTable(probe.db) });
    const error = await check().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('SERVICE_UNAVAILABLE');
    expect((error as AppError).headers['Retry-After']).toBe('10');
    // Rendered by the error middleware: the cause stays in the log.
    const rendered = problemResponse(error as AppError);
    expect(rendered.statusCode).toBe(503);
    expect(rendered.body).not.toMatch(/ECONNREFUSED|10\.0\.3\.7|prod-secret/);

    failing = false;
    await check(); // the failure was not reused: recovery shows at once
    expect(probe.calls).toHaveLength(2);
  });

  it('a table that does not answer within the timeout is 503 too', async () => {
    const probe = instrument(db, () => ({ answer: new Promise(() => undefined) }));
    const check = createHealthCheck({ probe: () => probeTable(probe.db), timeoutMs: 50 });
    await expect(check()).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  });
});
