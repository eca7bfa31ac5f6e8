import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as listHandler } from '../../../functions/list-pull-integrations';
import { handler as previewHandler } from '../../../functions/preview-pull-definition';
import { ANSWER_LIMITS } from '../../../lib/pull/answer';
import { previewDefinition } from '../../../lib/pull/run';
import { measurementKey } from '../../../lib/push/store';
import { pullFetchDeps } from '../../../lib/runtime';
import { invoke } from '../../support/events';
import { bearer, createTestTenant, db, type TestTenant } from '../../support/fixtures';
import { describeJwtAuth } from '../../support/jwt-auth-cases';
import { type PullSource, startPullSource } from '../../support/pull-source';

/**
 * POST /integrations/pull/preview: a definition fetched and extracted before it is saved, through the
 * egress guard, its credentials used and never answered, the answer shown cut and redacted, nothing
 * written.
 */
const PULL = ['kpi_push_measurement', 'kpi_api_integration'] as const;

const preview = (headers: Record<string, string>, body: unknown) =>
  invoke(previewHandler, { method: 'POST', path: '/api/integrations/pull/preview', headers, body });
const admin = (tenant: TestTenant) => bearer(tenant.users.ADMIN.token);

let tenant: TestTenant;
let source: PullSource;

beforeAll(async () => {
  [tenant, source] = await Promise.all([
    createTestTenant({ features: [...PULL], kpiTypes: ['BSC_KPI'] }),
    startPullSource(),
  ]);
  source.answers['/mrr'] = { json: { data: { mrr: 248_500, goal: 260_000, currency: 'EUR' } } };
});
afterAll(() => source.close());

const definition = (fields: Record<string, unknown> = {}) => ({
  name: 'Billing MRR',
  url: source.url('/mrr'),
  schedule: { every: 'day', at: '06:30' },
  bindings: [{ kpiId: tenant.kpis[0]!.id, kpiType: 'BSC_KPI', actual: 'data.mrr', target: 'data.goal' }],
  ...fields,
});

describe('POST /integrations/pull/preview', () => {
  it('answers the source’s JSON, each binding’s values and what a run would write, and writes nothing', async () => {
    const before = (await invoke(listHandler, { path: '/api/integrations/pull', headers: admin(tenant) }))
      .body.items.length;
    const result = await preview(admin(tenant), definition());
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    expect(result.body).toMatchObject({
      httpStatus: 200,
      errorClass: null,
      error: null,
      answer: { data: { mrr: 248_500, goal: 260_000, currency: 'EUR' } },
      answerTruncated: false,
      bindings: [{ kpiId: tenant.kpis[0]!.id, actual: 248_500, target: 260_000, problem: null }],
      measurements: [{ status: 'created', measurement: { actual: 248_500, target: 260_000 } }],
    });
    // No integration, no measurement: the planned one is not in the table.
    const after = await invoke(listHandler, { path: '/api/integrations/pull', headers: admin(tenant) });
    expect(after.body.items).toHaveLength(before);
    const planned = result.body.measurements[0].measurement;
    const stored = await db.client.send(
      new GetCommand({ TableName: db.tableName, Key: measurementKey(planned) }),
    );
    expect(stored.Item).toBeUndefined();
  });

  it('uses the credentials of the body and never answers them; an echoed one is redacted in the answer', async () => {
    const token = 'tok-preview-5e4d3c2b1a';
    const password = 'pw-preview-9a8b7c6d';
    const basic = Buffer.from(`reporter:${password}`).toString('base64');
    source.answers['/echo'] = {
      json: {
        value: 7,
        request: { authorization: `Bearer ${token}`, basic: `Basic ${basic}`, password },
        [token]: 'as a member name',
      },
    };
    const bearerPreview = await preview(
      admin(tenant),
      definition({
        url: source.url('/echo'),
        auth: { type: 'bearer', token },
        bindings: [{ kpiId: tenant.kpis[0]!.id, kpiType: 'BSC_KPI', actual: 'value' }],
      }),
    );
    expect(bearerPreview.status).toBe(200);
    expect(source.requestsTo('/echo').at(-1)?.headers.authorization).toBe(`Bearer ${token}`);
    expect(bearerPreview.body.answer.request.authorization).toBe('Bearer [redacted]');
    expect(bearerPreview.body.answer['[redacted]']).toBe('as a member name');
    expect(JSON.stringify(bearerPreview.body)).not.toContain(token);

    const basicPreview = await preview(
      admin(tenant),
      definition({
        url: source.url('/echo'),
        auth: { type: 'basic', username: 'reporter', password },
        bindings: [{ kpiId: tenant.kpis[0]!.id, kpiType: 'BSC_KPI', actual: 'value' }],
      }),
    );
    expect(basicPreview.body.answer.request).toEqual({
      // Not a credential of this request: shown as the source sent it.
      authorization: `Bearer ${token}`,
      basic: 'Basic [redacted]',
      password: '[redacted]',
    });
    expect(JSON.stringify(basicPreview.body)).not.toContain(password);
    expect(JSON.stringify(basicPreview.body)).not.toContain(basic);
  });

  it(`cuts the answer shown to ${ANSWER_LIMITS.arrayItems} items of an array and ${ANSWER_LIMITS.stringLength} characters of a string, and says so`, async () => {
    source.answers['/big'] = {
      json: {
        rows: Array.from({ length: 120 }, (_, i) => ({ i })),
        note: 'x'.repeat(500),
        total: 3,
      },
    };
    const result = await preview(
      admin(tenant),
      definition({
        url: source.url('/big'),
        bindings: [{ kpiId: tenant.kpis[0]!.id, kpiType: 'BSC_KPI', actual: 'length(rows)' }],
      }),
    );
    expect(result.status).toBe(200);
    expect(result.body.answerTruncated).toBe(true);
    expect(result.body.answer.rows).toHaveLength(ANSWER_LIMITS.arrayItems);
    expect(result.body.answer.rows[49]).toEqual({ i: 49 });
    expect(result.body.answer.note).toBe(`${'x'.repeat(ANSWER_LIMITS.stringLength)}…`);
    expect(result.body.answer.total).toBe(3);
    // The extraction reads the whole answer, not the cut one.
    expect(result.body.bindings[0].actual).toBe(120);
  });

  it('goes through the egress guard: a link-local or private address is refused at connect time, never reached', async () => {
    for (const url of ['https://169.254.169.254/latest/meta-data', 'https://10.0.0.8/x']) {
      const result = await preview(admin(tenant), definition({ url }));
      expect(result.status, url).toBe(200);
      expect(result.body, url).toMatchObject({
        httpStatus: null,
        errorClass: 'connection',
        error: 'refused by egress rules',
        answer: null,
        measurements: [],
      });
    }
  });

  it('on a deployed stage refuses such an address as text first (400 naming url), as a creation does', async () => {
    await expect(
      previewDefinition({ ...pullFetchDeps, local: false }, tenant.tenant.id, {
        ...(definition({ url: 'https://169.254.169.254/latest/meta-data' }) as any),
        auth: { type: 'none' },
      }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ path: 'url' }] });
  });

  it('400 naming the binding and field of a bad expression; a KPI that is not the tenant’s is the binding’s problem', async () => {
    const bad = await preview(
      admin(tenant),
      definition({ bindings: [{ kpiId: tenant.kpis[0]!.id, kpiType: 'BSC_KPI', actual: 'data.[' }] }),
    );
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ path: 'bindings[0].actual', message: expect.any(String) }]);
    const foreign = await preview(
      admin(tenant),
      definition({
        bindings: [{ kpiId: '0190a0b0-0000-7000-8000-000000000000', kpiType: 'BSC_KPI', actual: 'data.mrr' }],
      }),
    );
    expect(foreign.status).toBe(200);
    expect(foreign.body.bindings[0].problem).toMatch(/no KPI of this organization/);
    expect(foreign.body.measurements).toEqual([]);
  });

  it('VIEWER and EDITOR may not preview (403); without kpi_api_integration 403 feature-not-enabled', async () => {
    for (const role of ['VIEWER', 'EDITOR'] as const) {
      const refused = await preview(bearer(tenant.users[role].token), definition());
      expect(refused.status).toBe(403);
      expect(refused.body.type).toMatch(/\/forbidden$/);
    }
    const without = await createTestTenant({ kpiTypes: ['BSC_KPI'] });
    const off = await preview(admin(without), definition());
    expect(off.status).toBe(403);
    expect(off.body.type).toMatch(/\/feature-not-enabled$/);
    expect(source.requestsTo('/mrr').length).toBeGreaterThan(0);
  });
});

describeJwtAuth(
  'POST /integrations/pull/preview',
  (headers, owner) =>
    preview(headers, {
      ...definition(),
      bindings: [{ kpiId: owner.kpis[0]!.id, kpiType: 'BSC_KPI', actual: 'data.mrr' }],
    }),
  {
    roles: ['ADMIN'],
    tenant: { features: [...PULL] },
  },
);
