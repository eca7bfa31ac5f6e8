import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as createHandler } from '../../../functions/create-pull-integration';
import { handler as deleteHandler } from '../../../functions/delete-pull-integration';
import { handler as getKpiHandler } from '../../../functions/get-kpi';
import { handler as getHandler } from '../../../functions/get-pull-integration';
import { handler as runsHandler } from '../../../functions/list-pull-integration-runs';
import { handler as listHandler } from '../../../functions/list-pull-integrations';
import { handler as previewHandler } from '../../../functions/preview-pull-integration';
import { handler as runHandler } from '../../../functions/run-pull-integration';
import { handler as updateHandler } from '../../../functions/update-pull-integration';
import { keys } from '../../../lib/db/keys';
import { getIntegration } from '../../../lib/db/pull-integrations';
import { createIntegration } from '../../../lib/pull/definitions';
import { pullDeps } from '../../../lib/runtime';
import { freePort } from '../../../scripts/local/processes';
import { type InvokeResult, invoke } from '../../support/events';
import { bearer, createTestTenant, db, type TestTenant } from '../../support/fixtures';
import { describeJwtAuth } from '../../support/jwt-auth-cases';
import { captureOutput } from '../../support/output';
import { type PullSource, type SourceAnswer, startPullSource } from '../../support/pull-source';

const PULL = ['kpi_push_measurement', 'kpi_api_integration'] as const;

const create = (headers: Record<string, string>, body: unknown) =>
  invoke(createHandler, { method: 'POST', path: '/api/integrations/pull', headers, body });
const list = (headers: Record<string, string>, query?: Record<string, string>) =>
  invoke(listHandler, { path: '/api/integrations/pull', headers, ...(query ? { query } : {}) });
const withId =
  (method: string, suffix: string, handler: unknown) =>
  (headers: Record<string, string>, id: string, body?: unknown, query?: Record<string, string>) =>
    invoke(handler, {
      method,
      path: `/api/integrations/pull/${id}${suffix}`,
      resource: `/api/integrations/pull/{id}${suffix}`,
      pathParameters: { id },
      headers,
      ...(body === undefined ? {} : { body }),
      ...(query ? { query } : {}),
    });
const get = withId('GET', '', getHandler);
const patch = withId('PATCH', '', updateHandler);
const remove = withId('DELETE', '', deleteHandler);
const preview = withId('POST', '/preview', previewHandler);
const run = withId('POST', '/run', runHandler);
const runs = withId('GET', '/runs', runsHandler);

const admin = (tenant: TestTenant) => bearer(tenant.users.ADMIN.token);
const viewer = (tenant: TestTenant) => bearer(tenant.users.VIEWER.token);

let tenant: TestTenant;
let other: TestTenant;
let withoutFeature: TestTenant;
let source: PullSource;

beforeAll(async () => {
  [tenant, other, withoutFeature] = await Promise.all([
    createTestTenant({ features: [...PULL], kpiTypes: ['BSC_KPI', 'OKR_KEY_RESULT'] }),
    createTestTenant({ features: [...PULL], kpiTypes: ['BSC_KPI'] }),
    createTestTenant({ kpiTypes: ['BSC_KPI'] }),
  ]);
  source = await startPullSource();
  source.answers['/mrr'] = { json: { data: { mrr: 248_500, goal: 260_000 } } };
});
afterAll(() => source.close());

const definition = (owner: TestTenant, fields: Record<string, unknown> = {}) => ({
  name: 'Billing MRR',
  url: source.url('/mrr'),
  auth: { type: 'none' },
  schedule: { every: 'day', at: '06:30' },
  bindings: [{ kpiId: owner.kpis[0]!.id, kpiType: 'BSC_KPI', actual: 'data.mrr', target: 'data.goal' }],
  ...fields,
});

const createdFor = async (owner: TestTenant, fields: Record<string, unknown> = {}) => {
  const result = await create(admin(owner), definition(owner, fields));
  expect(result.status, JSON.stringify(result.body)).toBe(201);
  return result.body as { id: string; [field: string]: any };
};

const SECRETS = {
  bearer: { type: 'bearer', token: 'tok-9f8e7d6c5b4a' },
  header: { type: 'header', name: 'X-API-Key', value: 'hdr-1a2b3c4d5e6f' },
  basic: { type: 'basic', username: 'reporter', password: 'pw-0f1e2d3c4b5a' },
  oauth2_client_credentials: {
    type: 'oauth2_client_credentials',
    tokenUrl: '',
    clientId: 'kpi-client',
    clientSecret: 'cs-a1b2c3d4e5f6',
    scope: 'metrics:read',
  },
} as const;
const secretOf = (auth: (typeof SECRETS)[keyof typeof SECRETS]) =>
  'token' in auth
    ? auth.token
    : 'value' in auth
      ? auth.value
      : 'password' in auth
        ? auth.password
        : auth.clientSecret;

describe('the bindings of an integration', () => {
  const binding = () => ({ kpiId: tenant.kpis[0]!.id, kpiType: 'BSC_KPI', actual: 'data.mrr' });
  const withoutBindings = () => {
    const { bindings: _, ...rest } = definition(tenant);
    return rest;
  };

  it('are named bindings in what the service answers, and authentication defaults to none', async () => {
    const { auth: _, ...body } = definition(tenant);
    const created = await create(admin(tenant), body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ auth: { type: 'none' }, bindings: [{ actual: 'data.mrr' }] });
    expect(created.body).not.toHaveProperty('measurements');
  });

  it('are taken under their former name, measurements, for one version: in a creation and a change', async () => {
    const created = await create(admin(tenant), { ...withoutBindings(), measurements: [binding()] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.bindings).toEqual([binding()]);
    const changed = await patch(admin(tenant), created.body.id, {
      measurements: [{ ...binding(), actual: 'data.goal' }],
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body.bindings).toEqual([{ ...binding(), actual: 'data.goal' }]);
    const stored = await get(admin(tenant), created.body.id);
    expect(stored.body.bindings).toEqual([{ ...binding(), actual: 'data.goal' }]);
  });

  it('name a problem under the name the body used', async () => {
    const bad = { ...binding(), actual: 'data.[' };
    const old = await create(admin(tenant), { ...withoutBindings(), measurements: [bad] });
    expect(old.status).toBe(400);
    expect(old.body.errors).toEqual([{ path: 'measurements[0].actual', message: expect.any(String) }]);
    const current = await create(admin(tenant), { ...withoutBindings(), bindings: [bad] });
    expect(current.body.errors).toEqual([{ path: 'bindings[0].actual', message: expect.any(String) }]);
  });

  it('400 when both names are sent, or neither', async () => {
    const both = await create(admin(tenant), { ...definition(tenant), measurements: [binding()] });
    expect(both.status).toBe(400);
    expect(both.body.errors).toEqual([
      { path: 'measurements', message: 'send bindings only (measurements is its former name)' },
    ]);
    const neither = await create(admin(tenant), withoutBindings());
    expect(neither.status).toBe(400);
    expect(neither.body.errors).toEqual([{ path: 'bindings', message: 'is required: 1 or more bindings' }]);
  });
});

describe('POST /integrations/pull', () => {
  it('creates an active integration, due at once, with the defaults: period month, no headers', async () => {
    const before = Date.now();
    const created = await createdFor(tenant);
    expect(created).toMatchObject({
      name: 'Billing MRR',
      url: source.url('/mrr'),
      headers: {},
      auth: { type: 'none' },
      schedule: { every: 'day', at: '06:30' },
      period: 'month',
      status: 'active',
      consecutiveFailures: 0,
      failingSince: null,
      disabledAt: null,
      lastRun: null,
      createdBy: { type: 'user', userId: tenant.users.ADMIN.id },
    });
    // What is stored besides the entity stays in the table: the tenant, the sealed secrets, a claim.
    for (const field of ['tenantId', 'sealedSecrets', 'claimedSlot']) {
      expect(created).not.toHaveProperty(field);
      expect((await list(admin(tenant), { limit: '1000' })).body.items[0]).not.toHaveProperty(field);
      expect((await get(admin(tenant), created.id)).body).not.toHaveProperty(field);
    }
    expect(Date.parse(created.nextRunAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(created.nextRunAt)).toBeLessThanOrEqual(Date.now());
  });

  for (const [type, auth] of Object.entries(SECRETS)) {
    it(`auth ${type}: the secret is write-only, shown as { set: true }, never in an answer, list, log or the table`, async () => {
      const body = definition(tenant, {
        auth: type === 'oauth2_client_credentials' ? { ...auth, tokenUrl: source.url('/token') } : auth,
      });
      const secret = secretOf(auth);
      const { result, lines } = await captureOutput(() => create(admin(tenant), body));
      expect(result.status).toBe(201);
      const field = {
        bearer: 'token',
        header: 'value',
        basic: 'password',
        oauth2_client_credentials: 'clientSecret',
      }[type]!;
      expect(result.body.auth[field]).toEqual({ set: true });
      expect(lines.some((line) => line.audit === 'integration.created')).toBe(true);
      const { id } = result.body;
      const answers = [
        result,
        await list(admin(tenant), { limit: '1000' }),
        await get(viewer(tenant), id),
        await patch(admin(tenant), id, { name: 'Renamed' }),
        await runs(admin(tenant), id),
      ];
      for (const answer of answers) expect(JSON.stringify(answer.body)).not.toContain(secret);
      expect(JSON.stringify(lines)).not.toContain(secret);
      const { Item } = await db.client.send(
        new GetCommand({ TableName: db.tableName, Key: keys.pullIntegration(tenant.tenant.id, id) }),
      );
      expect(JSON.stringify(Item)).not.toContain(secret);
      expect(Item?.sealedSecrets).toMatch(/^p2\./);
    });
  }

  it('400 naming the field: URLs the egress rules refuse as text, on the local stage too', async () => {
    for (const [url, field] of [
      ['ftp://example.com/x', 'url'],
      ['http://example.com/x', 'url'],
      ['https://user:pw@example.com/x', 'url'],
      ['not a url', 'url'],
    ] as const) {
      const result = await create(admin(tenant), definition(tenant, { url }));
      expect(result.status, url).toBe(400);
      expect(
        result.body.errors.map((e: { path: string }) => e.path),
        url,
      ).toEqual([field]);
    }
    const oauth = await create(
      admin(tenant),
      definition(tenant, {
        auth: { ...SECRETS.oauth2_client_credentials, tokenUrl: 'http://tokens.example.com/t' },
      }),
    );
    expect(oauth.status).toBe(400);
    expect(oauth.body.errors.map((e: { path: string }) => e.path)).toEqual(['auth.tokenUrl']);
  });

  it('on a deployed stage: no http, no localhost, no private or link-local address literal (before any write)', async () => {
    for (const url of [
      source.url('/mrr'),
      'https://localhost/x',
      'https://127.0.0.1/x',
      'https://10.0.0.8/x',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/x',
    ]) {
      await expect(
        createIntegration(
          { ...pullDeps, local: false },
          {
            ...(definition(tenant, { url }) as any),
            tenantId: tenant.tenant.id,
            createdBy: null,
          },
        ),
        url,
      ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ path: 'url' }] });
    }
  });

  it('400 naming the field: expressions, headers, schedule, bindings, secrets', async () => {
    const kpi = tenant.kpis[0]!;
    const cases: [Record<string, unknown>, string][] = [
      [{ bindings: [{ kpiId: kpi.id, kpiType: 'BSC_KPI', actual: 'data.[' }] }, 'bindings[0].actual'],
      [
        { bindings: [{ kpiId: kpi.id, kpiType: 'BSC_KPI', actual: 'a', target: 'nope(' }] },
        'bindings[0].target',
      ],
      [{ period: { start: 'p.from', end: 'unknown_fn(p)' } }, 'period.end'],
      [{ period: 'year' }, 'period'],
      [{ headers: { Authorization: 'Bearer x' } }, 'headers'],
      [{ headers: { Cookie: 'a=b' } }, 'headers'],
      [{ headers: { host: 'example.com' } }, 'headers'],
      [{ headers: { 'X-A': 'line\r\nInjected: 1' } }, 'headers.X-A'],
      [{ headers: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`X-H${i}`, 'v'])) }, 'headers'],
      [{ schedule: { every: '15m', at: '06:00' } }, 'schedule.at'],
      [{ schedule: { every: 'day', at: '25:00' } }, 'schedule.at'],
      [{ schedule: { every: 'year' } }, 'schedule.every'],
      [{ bindings: [] }, 'bindings'],
      [
        {
          bindings: Array.from({ length: 51 }, () => ({
            kpiId: randomUUID(),
            kpiType: 'BSC_KPI',
            actual: 'a',
          })),
        },
        'bindings',
      ],
      [
        {
          bindings: [
            { kpiId: kpi.id, kpiType: 'BSC_KPI', actual: 'a' },
            { kpiId: kpi.id, kpiType: 'BSC_KPI', actual: 'b' },
          ],
        },
        'bindings[1].kpiId',
      ],
      [{ auth: { type: 'bearer' } }, 'auth.token'],
      [{ auth: { type: 'header', name: 'X-Key', value: 'v' }, headers: { 'x-key': 'w' } }, 'auth.name'],
      [{ auth: { type: 'digest' } }, 'auth.type'],
      [{ name: '' }, 'name'],
      [{ name: 'x'.repeat(101) }, 'name'],
      [{ secret: 'unknown field' }, 'secret'],
    ];
    for (const [fields, path] of cases) {
      const result = await create(admin(tenant), definition(tenant, fields));
      expect(result.status, path).toBe(400);
      expect(result.headers['content-type']).toBe('application/problem+json');
      expect(
        result.body.errors.map((e: { path: string }) => e.path),
        path,
      ).toContain(path);
    }
  });

  it('400 naming the binding and the field for an expression that could never fit its evaluation bounds', async () => {
    const kpi = tenant.kpis[0]!;
    const doubling = `${'[@,@]|'.repeat(19)}length(to_string(@))`;
    const result = await create(
      admin(tenant),
      definition(tenant, {
        bindings: [
          { kpiId: kpi.id, kpiType: 'BSC_KPI', actual: 'value' },
          {
            kpiId: tenant.kpis[1]?.id ?? randomUUID(),
            kpiType: 'BSC_KPI',
            actual: 'v',
            forecast: `a && (${doubling})`,
          },
        ],
      }),
    );
    expect(result.status).toBe(400);
    expect(result.headers['content-type']).toBe('application/problem+json');
    expect(result.body.errors).toContainEqual({
      path: 'bindings[1].forecast',
      message:
        'is refused: it can copy its input 524288 times (multi-selects along pipes or projections); at most 16 is allowed',
    });
  });

  it('404 for a binding to another tenant’s KPI, an unknown one or one of another type, naming them', async () => {
    const foreign = other.kpis[0]!.id;
    const unknown = randomUUID();
    const result = await create(
      admin(tenant),
      definition(tenant, {
        bindings: [
          { kpiId: foreign, kpiType: 'BSC_KPI', actual: 'a' },
          { kpiId: unknown, kpiType: 'BSC_KPI', actual: 'a' },
          { kpiId: tenant.kpis[1]!.id, kpiType: 'BSC_KPI', actual: 'a' },
        ],
      }),
    );
    expect(result.status).toBe(404);
    expect(result.body.type).toMatch(/\/not-found$/);
    expect(result.body.missingKpiIds).toEqual([foreign, unknown, tenant.kpis[1]!.id]);
  });
});

describe('the plan feature kpi_api_integration', () => {
  it('403 with the push’s problem shape on every pull route for a tenant without it', async () => {
    const id = randomUUID();
    const answers: InvokeResult[] = [
      await create(admin(withoutFeature), definition(withoutFeature)),
      await list(admin(withoutFeature)),
      await get(admin(withoutFeature), id),
      await patch(admin(withoutFeature), id, { name: 'x' }),
      await remove(admin(withoutFeature), id),
      await preview(admin(withoutFeature), id),
      await run(admin(withoutFeature), id),
      await runs(admin(withoutFeature), id),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(403);
      expect(answer.body).toMatchObject({
        type: 'https://strategy-service.example.com/problems/feature-not-enabled',
        title: "The tenant's plan does not include this feature",
        feature: 'kpi_api_integration',
      });
    }
  });
});

describe('another tenant’s integration', () => {
  it('404 on every route, as an unknown one; it stays as it was', async () => {
    const theirs = await createdFor(other);
    for (const id of [theirs.id, randomUUID()]) {
      for (const answer of [
        await get(admin(tenant), id),
        await patch(admin(tenant), id, { name: 'Mine now' }),
        await remove(admin(tenant), id),
        await preview(admin(tenant), id),
        await run(admin(tenant), id),
        await runs(admin(tenant), id),
      ]) {
        expect(answer.status).toBe(404);
        expect(answer.body.type).toMatch(/\/not-found$/);
      }
    }
    expect(source.requestsTo('/mrr').length).toBe(0);
    const stored = await getIntegration(db, other.tenant.id, theirs.id);
    expect(stored?.name).toBe('Billing MRR');
    expect(stored?.lastRun).toBeNull();
    expect(
      (await list(admin(tenant), { limit: '1000' })).body.items.map((i: { id: string }) => i.id),
    ).not.toContain(theirs.id);
  });
});

describe('POST /integrations/pull/{id}/preview', () => {
  it('answers the status, duration, each binding’s values and what a run would write; stores nothing, schedule unchanged', async () => {
    const created = await createdFor(tenant);
    const result = await preview(admin(tenant), created.id);
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({
      httpStatus: 200,
      errorClass: null,
      error: null,
      bindings: [
        {
          kpiId: tenant.kpis[0]!.id,
          kpiType: 'BSC_KPI',
          actual: 248_500,
          target: 260_000,
          forecast: null,
          problem: null,
        },
      ],
      measurements: [
        {
          status: expect.stringMatching(/^(created|updated)$/),
          measurement: { kpiId: tenant.kpis[0]!.id, actual: 248_500, target: 260_000 },
        },
      ],
    });
    expect(typeof result.body.durationMs).toBe('number');
    // As a push's dry run shows it: the record without its provenance.
    expect(Object.keys(result.body.measurements[0].measurement).sort()).toEqual([
      'actual',
      'createdAt',
      'forecast',
      'id',
      'kpiId',
      'kpiType',
      'periodEnd',
      'periodStart',
      'replaced',
      'target',
      'updatedAt',
    ]);
    const after = await getIntegration(db, tenant.tenant.id, created.id);
    expect(after?.nextRunAt).toBe(created.nextRunAt);
    expect(after?.lastRun).toBeNull();
    expect((await runs(admin(tenant), created.id)).body.items).toEqual([]);
  });

  it('shows why a binding fails: nothing matched, not a number, a deleted KPI', async () => {
    const kpi = tenant.kpis[1]!;
    source.answers['/mixed'] = { json: { a: 'text', b: 3 } };
    const created = await createdFor(tenant, {
      url: source.url('/mixed'),
      bindings: [
        { kpiId: tenant.kpis[0]!.id, kpiType: 'BSC_KPI', actual: 'nothing.here' },
        { kpiId: kpi.id, kpiType: 'OKR_KEY_RESULT', actual: 'a' },
      ],
    });
    const { body } = await preview(admin(tenant), created.id);
    expect(body.bindings.map((b: { problem: string }) => b.problem)).toEqual([
      'actual: the path matched nothing',
      'actual: not a number (found a string; to_number() converts a numeric string)',
    ]);
    expect(body.measurements).toEqual([]);
  });

  it('VIEWER and EDITOR may not preview or run (403); they may read', async () => {
    const created = await createdFor(tenant);
    for (const role of ['VIEWER', 'EDITOR'] as const) {
      for (const answer of [
        await preview(bearer(tenant.users[role].token), created.id),
        await run(bearer(tenant.users[role].token), created.id),
        await patch(bearer(tenant.users[role].token), created.id, { name: 'x' }),
        await remove(bearer(tenant.users[role].token), created.id),
        await create(bearer(tenant.users[role].token), definition(tenant)),
      ]) {
        expect(answer.status).toBe(403);
        expect(answer.body.type).toMatch(/\/forbidden$/);
      }
      expect((await get(bearer(tenant.users[role].token), created.id)).status).toBe(200);
      expect((await runs(bearer(tenant.users[role].token), created.id)).status).toBe(200);
    }
  });
});

describe('POST /integrations/pull/{id}/run and the run log', () => {
  it('stores through the push’s write path: created, then updated; the record names the integration, the KPI shows it', async () => {
    const owner = await createTestTenant({ features: [...PULL], kpiTypes: ['BSC_KPI'], period: 'day' });
    const created = await createdFor(owner, { name: 'Billing MRR', period: 'day' });
    const first = await run(admin(owner), created.id);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      integrationId: created.id,
      trigger: 'manual',
      httpStatus: 200,
      outcome: 'stored',
      errorClass: null,
      error: null,
      measurementsStored: 1,
      bindings: [
        { kpiId: owner.kpis[0]!.id, result: 'created', actual: 248_500, target: 260_000, problem: null },
      ],
    });
    source.answers['/mrr'] = { json: { data: { mrr: 250_000, goal: 260_000 } } };
    const second = await run(admin(owner), created.id);
    expect(second.body.bindings[0]).toMatchObject({ result: 'updated', actual: 250_000 });
    source.answers['/mrr'] = { json: { data: { mrr: 248_500, goal: 260_000 } } };
    const kpi = await invoke(getKpiHandler, {
      path: `/api/kpis/${owner.kpis[0]!.id}`,
      pathParameters: { kpiId: owner.kpis[0]!.id },
      headers: viewer(owner),
    });
    const [measurement] = kpi.body.measurements;
    expect(measurement).toMatchObject({
      actual: 250_000,
      target: 260_000,
      integrationId: created.id,
      integrationName: 'Billing MRR',
      apiKeyId: null,
      apiKeyPrefix: null,
    });
    expect(measurement.receivedAt).toBe(measurement.updatedAt);
    // The run log: newest first, paged.
    const page = await runs(viewer(owner), created.id, undefined, { limit: '1' });
    expect(page.body.items.map((r: { id: string }) => r.id)).toEqual([second.body.id]);
    const next = await runs(viewer(owner), created.id, undefined, {
      limit: '1',
      cursor: page.body.nextCursor,
    });
    expect(next.body.items.map((r: { id: string }) => r.id)).toEqual([first.body.id]);
    expect(next.body.nextCursor).toBeUndefined();
    // The list shows the last run and the next slot.
    const listed = (await list(viewer(owner))).body.items[0];
    expect(listed.lastRun).toMatchObject({ id: second.body.id, outcome: 'stored', httpStatus: 200 });
    expect(Date.parse(listed.nextRunAt)).toBeGreaterThan(Date.now());
    // Usage per day: two runs, two measurements.
    const detail = await get(viewer(owner), created.id);
    expect(detail.body.usage).toEqual([expect.objectContaining({ runs: 2, measurements: 2, failed: 0 })]);
  });

  it('a binding whose KPI was deleted fails visibly; the others store (partial)', async () => {
    const owner = await createTestTenant({ features: [...PULL], kpiTypes: ['BSC_KPI', 'OKR_KEY_RESULT'] });
    source.answers['/two'] = { json: { a: 1, b: 2 } };
    const created = await createdFor(owner, {
      url: source.url('/two'),
      bindings: [
        { kpiId: owner.kpis[0]!.id, kpiType: 'BSC_KPI', actual: 'a' },
        { kpiId: owner.kpis[1]!.id, kpiType: 'OKR_KEY_RESULT', actual: 'b' },
      ],
    });
    await db.client.send(new DeleteCommand({ TableName: db.tableName, Key: keys.kpi(owner.kpis[1]!.id) }));
    const result = await run(admin(owner), created.id);
    expect(result.body).toMatchObject({
      outcome: 'partial',
      measurementsStored: 1,
      bindings: [
        { result: 'created', problem: null },
        { result: 'failed', problem: 'no KPI of this organization with this id and kpiType (deleted?)' },
      ],
    });
  });
});

describe('each authentication type reaches the source', () => {
  it('bearer, header, basic: the credentials in the request, the service’s User-Agent, Accept JSON', async () => {
    const expected = {
      bearer: ['authorization', 'Bearer tok-9f8e7d6c5b4a'],
      header: ['x-api-key', 'hdr-1a2b3c4d5e6f'],
      basic: ['authorization', `Basic ${Buffer.from('reporter:pw-0f1e2d3c4b5a').toString('base64')}`],
    } as const;
    for (const [type, [header, value]] of Object.entries(expected)) {
      source.answers[`/auth-${type}`] = { json: { data: { mrr: 1, goal: 2 } } };
      const created = await createdFor(tenant, {
        url: source.url(`/auth-${type}`),
        auth: SECRETS[type as keyof typeof expected],
        headers: { 'Accept-Language': 'de' },
      });
      expect((await run(admin(tenant), created.id)).body.outcome).toBe('stored');
      const [request] = source.requestsTo(`/auth-${type}`);
      expect(request?.method).toBe('GET');
      expect(request?.headers[header]).toBe(value);
      expect(request?.headers['accept-language']).toBe('de');
      expect(request?.headers['user-agent']).toBe('strategy-service-pull/1');
      expect(request?.headers.accept).toBe('application/json');
    }
  });

  it('oauth2_client_credentials: a token from the token endpoint, kept until shortly before it expires', async () => {
    source.answers['/token'] = { json: { access_token: 'at-123', token_type: 'Bearer', expires_in: 3600 } };
    source.answers['/oauth-metrics'] = { json: { data: { mrr: 7, goal: 8 } } };
    const created = await createdFor(tenant, {
      url: source.url('/oauth-metrics'),
      auth: { ...SECRETS.oauth2_client_credentials, tokenUrl: source.url('/token') },
    });
    const tokensBefore = source.requestsTo('/token').length;
    expect((await run(admin(tenant), created.id)).body.outcome).toBe('stored');
    expect((await preview(admin(tenant), created.id)).body.errorClass).toBeNull();
    const tokenRequests = source.requestsTo('/token').slice(tokensBefore);
    expect(tokenRequests).toHaveLength(1);
    const [tokenRequest] = tokenRequests;
    expect(tokenRequest?.method).toBe('POST');
    expect(tokenRequest?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(tokenRequest?.body))).toEqual({
      grant_type: 'client_credentials',
      scope: 'metrics:read',
    });
    expect(tokenRequest?.headers.authorization).toBe(
      `Basic ${Buffer.from('kpi-client:cs-a1b2c3d4e5f6').toString('base64')}`,
    );
    for (const request of source.requestsTo('/oauth-metrics')) {
      expect(request.headers.authorization).toBe('Bearer at-123');
    }
    // A token that expires within the minute is used for its fetch only.
    source.answers['/token'] = { json: { access_token: 'at-short', expires_in: 30 } };
    const again = await createdFor(tenant, {
      url: source.url('/oauth-metrics'),
      auth: {
        ...SECRETS.oauth2_client_credentials,
        tokenUrl: source.url('/token'),
        clientSecret: 'other-secret',
      },
    });
    await run(admin(tenant), again.id);
    await run(admin(tenant), again.id);
    expect(source.requestsTo('/token').length - tokensBefore).toBe(3);
  });
});

describe('each failure class, in the run log without the body or a secret', () => {
  const failing = async (answer: SourceAnswer, fields: Record<string, unknown> = {}) => {
    const path = `/fail-${randomUUID()}`;
    source.answers[path] = answer;
    const created = await createdFor(tenant, { url: source.url(path), ...fields });
    const result = await run(admin(tenant), created.id);
    expect(result.status).toBe(200);
    expect(result.body.outcome).toBe('failed');
    expect(result.body.measurementsStored).toBe(0);
    return result.body;
  };

  it('nothing of the body reaches the logs or the run log, whatever the outcome', async () => {
    source.answers['/logged'] = { json: { value: 5, note: 'body-text-never-logged' } };
    const created = await createdFor(tenant, {
      url: source.url('/logged'),
      bindings: [{ kpiId: tenant.kpis[0]!.id, kpiType: 'BSC_KPI', actual: 'note' }],
    });
    const { result, lines } = await captureOutput(() => run(admin(tenant), created.id));
    expect(result.body.bindings[0].problem).toBe(
      'actual: not a number (found a string; to_number() converts a numeric string)',
    );
    expect(lines.some((line) => line.message === 'pull integration run')).toBe(true);
    expect(JSON.stringify(lines)).not.toContain('body-text-never-logged');
    expect(JSON.stringify((await runs(admin(tenant), created.id)).body)).not.toContain(
      'body-text-never-logged',
    );
  });

  it('http_status: a 503, and a redirect (never followed)', async () => {
    expect(await failing({ status: 503, json: { error: 'body-text-never-logged' } })).toMatchObject({
      httpStatus: 503,
      errorClass: 'http_status',
      error: 'the source answered HTTP 503',
    });
    const redirect = await failing({ status: 302, text: '', headers: { location: source.url('/mrr') } });
    expect(redirect).toMatchObject({ httpStatus: 302, errorClass: 'http_status' });
    expect(JSON.stringify(redirect)).not.toContain('body-text-never-logged');
  });

  it('not_json: an HTML answer, or JSON that does not parse', async () => {
    expect(await failing({ text: '<html>secret page</html>', contentType: 'text/html' })).toMatchObject({
      httpStatus: 200,
      errorClass: 'not_json',
    });
    const broken = await failing({ text: '{"a":', contentType: 'application/json' });
    expect(broken.errorClass).toBe('not_json');
    expect(JSON.stringify(broken)).not.toContain('secret page');
  });

  it('too_large: more than 1 MiB', async () => {
    expect(await failing({ json: { pad: 'x'.repeat(1024 * 1024 + 10) } })).toMatchObject({
      errorClass: 'too_large',
    });
  });

  it('auth: the source refuses the credentials, or the token endpoint refuses the client', async () => {
    expect(await failing({ status: 401, json: {} }, { auth: SECRETS.bearer })).toMatchObject({
      httpStatus: 401,
      errorClass: 'auth',
    });
    source.answers['/token-refused'] = { status: 400, json: { error: 'invalid_client' } };
    const refused = await failing(
      { json: { data: { mrr: 1 } } },
      { auth: { ...SECRETS.oauth2_client_credentials, tokenUrl: source.url('/token-refused') } },
    );
    expect(refused).toMatchObject({
      httpStatus: null,
      errorClass: 'auth',
      error: 'the token endpoint answered HTTP 400',
    });
  });

  it('connection: nobody listens', async () => {
    const created = await createdFor(tenant, { url: `http://127.0.0.1:${await freePort()}/x` });
    expect((await run(admin(tenant), created.id)).body).toMatchObject({
      outcome: 'failed',
      httpStatus: null,
      errorClass: 'connection',
    });
    expect(await failing({ reset: true })).toMatchObject({ errorClass: 'connection' });
  });

  it('timeout: the source never answers (10 s)', async () => {
    expect(await failing({ hang: true })).toMatchObject({
      errorClass: 'timeout',
      httpStatus: null,
      error: 'the source did not answer in time',
    });
  });

  it('no binding gives a value: failed without an error class', async () => {
    expect(await failing({ json: { other: 1 } })).toMatchObject({
      httpStatus: 200,
      errorClass: null,
      error: 'no binding gave a value that could be stored',
    });
  });
});

describe('PATCH /integrations/pull/{id}', () => {
  it('a secret is replaced only when sent; a new type needs its secret', async () => {
    source.answers['/patched'] = { json: { data: { mrr: 1, goal: 2 } } };
    const created = await createdFor(tenant, { url: source.url('/patched'), auth: SECRETS.bearer });
    const renamed = await patch(admin(tenant), created.id, { name: 'Renamed', auth: { type: 'bearer' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Renamed', auth: { type: 'bearer', token: { set: true } } });
    await run(admin(tenant), created.id);
    expect(source.requestsTo('/patched').at(-1)?.headers.authorization).toBe('Bearer tok-9f8e7d6c5b4a');
    await patch(admin(tenant), created.id, { auth: { type: 'bearer', token: 'tok-rotated' } });
    await run(admin(tenant), created.id);
    expect(source.requestsTo('/patched').at(-1)?.headers.authorization).toBe('Bearer tok-rotated');
    const missing = await patch(admin(tenant), created.id, { auth: { type: 'basic', username: 'u' } });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual([
      { path: 'auth.password', message: 'is required when the type changes to basic' },
    ]);
    const basic = await patch(admin(tenant), created.id, {
      auth: { type: 'basic', username: 'u', password: 'pw-new' },
    });
    expect(basic.status).toBe(200);
    await run(admin(tenant), created.id);
    expect(source.requestsTo('/patched').at(-1)?.headers.authorization).toBe(
      `Basic ${Buffer.from('u:pw-new').toString('base64')}`,
    );
    expect((await patch(admin(tenant), created.id, { auth: { type: 'none' } })).body.auth).toEqual({
      type: 'none',
    });
  });

  it('a new schedule moves the next run to its next slot; an unknown field is 400', async () => {
    const created = await createdFor(tenant);
    const changed = await patch(admin(tenant), created.id, { schedule: { every: 'hour' } });
    expect(new Date(changed.body.nextRunAt).getUTCMinutes()).toBe(0);
    expect(Date.parse(changed.body.nextRunAt)).toBeGreaterThan(Date.now());
    expect((await patch(admin(tenant), created.id, { enabled: true })).status).toBe(400);
  });
});

describe('DELETE /integrations/pull/{id}', () => {
  it('204; then 404; it leaves the list and is never run again', async () => {
    const created = await createdFor(tenant);
    expect((await remove(admin(tenant), created.id)).status).toBe(204);
    expect((await remove(admin(tenant), created.id)).status).toBe(404);
    expect((await get(admin(tenant), created.id)).status).toBe(404);
    const listed = await list(admin(tenant), { limit: '1000' });
    expect(listed.body.items.map((i: { id: string }) => i.id)).not.toContain(created.id);
  });
});

// One integration per tenant of the shared cases, for the routes that name one.
const integrationOf = new Map<string, Promise<string>>();
const oneOf = (owner: TestTenant) => {
  if (!integrationOf.has(owner.tenant.id))
    integrationOf.set(
      owner.tenant.id,
      createdFor(owner).then((c) => c.id),
    );
  return integrationOf.get(owner.tenant.id) as Promise<string>;
};
const sharedTenant = { features: [...PULL] };

describeJwtAuth('POST /integrations/pull', (headers, owner) => create(headers, definition(owner)), {
  roles: ['ADMIN'],
  tenant: sharedTenant,
});
describeJwtAuth('GET /integrations/pull', (headers) => list(headers), { tenant: sharedTenant });
describeJwtAuth('GET /integrations/pull/{id}', async (headers, owner) => get(headers, await oneOf(owner)), {
  tenant: sharedTenant,
});
describeJwtAuth(
  'PATCH /integrations/pull/{id}',
  async (headers, owner) => patch(headers, await oneOf(owner), { name: 'Changed' }),
  { roles: ['ADMIN'], tenant: sharedTenant },
);
describeJwtAuth(
  'DELETE /integrations/pull/{id}',
  async (headers, owner) => remove(headers, (await createdFor(owner)).id),
  { roles: ['ADMIN'], tenant: sharedTenant },
);
describeJwtAuth(
  'POST /integrations/pull/{id}/preview',
  async (headers, owner) => preview(headers, await oneOf(owner)),
  {
    roles: ['ADMIN'],
    tenant: sharedTenant,
  },
);
describeJwtAuth(
  'POST /integrations/pull/{id}/run',
  async (headers, owner) => run(headers, await oneOf(owner)),
  {
    roles: ['ADMIN'],
    tenant: sharedTenant,
  },
);
describeJwtAuth(
  'GET /integrations/pull/{id}/runs',
  async (headers, owner) => runs(headers, await oneOf(owner)),
  {
    tenant: sharedTenant,
  },
);
