import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as createHandler } from '../../../functions/create-pull-integration';
import { handler as getHandler } from '../../../functions/get-pull-integration';
import { handler as listHandler } from '../../../functions/list-pull-integrations';
import { handler as previewHandler } from '../../../functions/preview-pull-integration';
import { handler as runHandler } from '../../../functions/run-pull-integration';
import { handler as workerHandler } from '../../../functions/run-pull-integrations';
import { handler as updateHandler } from '../../../functions/update-pull-integration';
import { keys } from '../../../lib/db/keys';
import { invoke } from '../../support/events';
import { bearer, createTestTenant, db, type TestTenant } from '../../support/fixtures';
import { type PullSource, startPullSource } from '../../support/pull-source';

/**
 * A stored secret never follows a changed destination: a PATCH that moves an integration's URL or
 * token URL to another origin, or renames its secret header, must send the secret again (400 naming
 * the field otherwise), and a sealed secret opens only for the origin it was given for, so that even
 * an integration moved behind the use case's back (as a bug elsewhere would) sends it nowhere. The
 * attacker is a real HTTP server on another port of this machine; the preview, the manual run and the
 * scheduled run are each tried.
 */

let tenant: TestTenant;
let source: PullSource;
let elsewhere: PullSource;
beforeAll(async () => {
  tenant = await createTestTenant({
    features: ['kpi_push_measurement', 'kpi_api_integration'],
    kpiTypes: ['BSC_KPI'],
  });
  [source, elsewhere] = await Promise.all([startPullSource(), startPullSource()]);
  for (const server of [source, elsewhere]) {
    server.answers['/value'] = { json: { value: 3 } };
    server.answers['/token'] = { json: { access_token: 'at-issued', expires_in: 3600 } };
  }
});
afterAll(() => Promise.all([source.close(), elsewhere.close()]));

const admin = () => bearer(tenant.users.ADMIN.token);
const withId =
  (method: string, suffix: string, handler: unknown) =>
  (id: string, body?: unknown, headers: Record<string, string> = admin()) =>
    invoke(handler, {
      method,
      path: `/api/integrations/pull/${id}${suffix}`,
      resource: `/api/integrations/pull/{id}${suffix}`,
      pathParameters: { id },
      headers,
      ...(body === undefined ? {} : { body }),
    });
const get = withId('GET', '', getHandler);
const patch = withId('PATCH', '', updateHandler);
const preview = withId('POST', '/preview', previewHandler);
const run = withId('POST', '/run', runHandler);

/** A scheduled run of the integration, as the worker gets it from the queue. */
const scheduledRun = async (id: string) => {
  const slot = `slot-${id}`;
  await db.client.send(
    new UpdateCommand({
      TableName: db.tableName,
      Key: keys.pullIntegration(tenant.tenant.id, id),
      UpdateExpression: 'SET claimedSlot = :slot',
      ExpressionAttributeValues: { ':slot': slot },
    }),
  );
  const body = JSON.stringify({ tenantId: tenant.tenant.id, integrationId: id, slot });
  return workerHandler(
    { Records: [{ messageId: 'm1', receiptHandle: 'r1', body, attributes: {} }] } as never,
    { functionName: 'runPullIntegrations' } as never,
  );
};

const SECRET = {
  bearer: 'tok-stored-5e6f7a8b',
  header: 'hdr-stored-1c2d3e4f',
  basic: 'pw-stored-9a8b7c6d',
  oauth2_client_credentials: 'cs-stored-0e1f2a3b',
} as const;
type Type = keyof typeof SECRET;
const FIELD = {
  bearer: 'token',
  header: 'value',
  basic: 'password',
  oauth2_client_credentials: 'clientSecret',
};

const authOf = (type: Type, tokenUrl = source.url('/token')) =>
  ({
    bearer: { type, token: SECRET.bearer },
    header: { type, name: 'X-API-Key', value: SECRET.header },
    basic: { type, username: 'reporter', password: SECRET.basic },
    oauth2_client_credentials: {
      type,
      tokenUrl,
      clientId: 'kpi',
      clientSecret: SECRET.oauth2_client_credentials,
    },
  })[type];

const created = async (type: Type) => {
  const result = await invoke(createHandler, {
    method: 'POST',
    path: '/api/integrations/pull',
    headers: admin(),
    body: {
      name: `Billing ${type}`,
      url: source.url('/value'),
      auth: authOf(type),
      schedule: { every: 'day' },
      bindings: [{ kpiId: tenant.kpis[0]!.id, kpiType: 'BSC_KPI', actual: 'value' }],
    },
  });
  expect(result.status, JSON.stringify(result.body)).toBe(201);
  return result.body.id as string;
};

const stored = async (id: string) =>
  (
    await db.client.send(
      new GetCommand({ TableName: db.tableName, Key: keys.pullIntegration(tenant.tenant.id, id) }),
    )
  ).Item as Record<string, unknown>;

/** Everything the other server received, as one text: no secret of the test may be in it. */
const receivedElsewhere = () => JSON.stringify(elsewhere.received);
const basicOf = (user: string, secret: string) => Buffer.from(`${user}:${secret}`).toString('base64');
const leaks = () => [
  ...Object.values(SECRET),
  basicOf('reporter', SECRET.basic),
  basicOf('kpi', SECRET.oauth2_client_credentials),
  'at-issued',
];

const TYPES = Object.keys(SECRET) as Type[];

describe('a PATCH that changes the destination without the secret', () => {
  it.each(TYPES)(
    '%s: a new URL origin alone is 400 naming the secret field; nothing changes',
    async (type) => {
      const id = await created(type);
      const before = await stored(id);
      const moved = await patch(id, { url: elsewhere.url('/value') });
      expect(moved.status).toBe(400);
      expect(moved.headers['Content-Type'] ?? moved.headers['content-type']).toBe('application/problem+json');
      expect(moved.body.errors).toEqual([
        {
          path: `auth.${FIELD[type]}`,
          message:
            'is required when the origin of url changes: a stored secret is never sent to a new destination',
        },
      ]);
      expect(await stored(id)).toEqual(before);
      for (const outcome of [await preview(id), await run(id)]) expect(outcome.status).toBe(200);
      await scheduledRun(id);
      expect(elsewhere.received).toEqual([]);
    },
  );

  it('oauth2_client_credentials: a new token URL origin alone is 400 naming auth.clientSecret', async () => {
    const id = await created('oauth2_client_credentials');
    const moved = await patch(id, {
      auth: { type: 'oauth2_client_credentials', tokenUrl: elsewhere.url('/token'), clientId: 'kpi' },
    });
    expect(moved.status).toBe(400);
    expect(moved.body.errors).toEqual([
      {
        path: 'auth.clientSecret',
        message:
          'is required when the origin of auth.tokenUrl changes: a stored secret is never sent to a new destination',
      },
    ]);
    await run(id);
    await preview(id);
    await scheduledRun(id);
    expect(elsewhere.received).toEqual([]);
  });

  it('header: a new header name alone is 400 naming auth.value; a new spelling of the name is the same header', async () => {
    const id = await created('header');
    const renamed = await patch(id, { auth: { type: 'header', name: 'X-Forwarded-Token' } });
    expect(renamed.status).toBe(400);
    expect(renamed.body.errors).toEqual([
      {
        path: 'auth.value',
        message: 'is required when auth.name changes: a stored secret is never sent to a new destination',
      },
    ]);
    expect((await patch(id, { auth: { type: 'header', name: 'x-api-key' } })).status).toBe(200);
    await run(id);
    expect(source.received.at(-1)?.headers['x-api-key']).toBe(SECRET.header);
  });

  it('a new path or query of the same origin keeps the secret; an integration without one may move freely', async () => {
    const id = await created('bearer');
    source.answers['/moved'] = { json: { value: 4 } };
    expect((await patch(id, { url: source.url('/moved?page=1') })).status).toBe(200);
    expect((await run(id)).body.outcome).toBe('stored');
    expect(source.requestsTo('/moved').at(-1)?.headers.authorization).toBe(`Bearer ${SECRET.bearer}`);

    const none = await created('bearer');
    expect((await patch(none, { auth: { type: 'none' } })).status).toBe(200);
    expect((await patch(none, { url: elsewhere.url('/value') })).status).toBe(200);
    await run(none);
    expect(elsewhere.requestsTo('/value').at(-1)?.headers.authorization).toBeUndefined();
    elsewhere.received.length = 0;
  });
});

describe('a PATCH that changes the destination and sends the secret again', () => {
  it('takes it: the new origin gets the new secret, never the stored one', async () => {
    const id = await created('bearer');
    const moved = await patch(id, {
      url: elsewhere.url('/value'),
      auth: { type: 'bearer', token: 'tok-for-elsewhere' },
    });
    expect(moved.status).toBe(200);
    await run(id);
    expect(elsewhere.requestsTo('/value').at(-1)?.headers.authorization).toBe('Bearer tok-for-elsewhere');
    for (const secret of leaks()) expect(receivedElsewhere()).not.toContain(secret);

    const oauth = await created('oauth2_client_credentials');
    const newTokenUrl = await patch(oauth, {
      auth: {
        type: 'oauth2_client_credentials',
        tokenUrl: elsewhere.url('/token'),
        clientId: 'kpi',
        clientSecret: 'cs-new',
      },
    });
    expect(newTokenUrl.status).toBe(200);
    await run(oauth);
    expect(elsewhere.requestsTo('/token').at(-1)?.headers.authorization).toBe(
      `Basic ${basicOf('kpi', 'cs-new')}`,
    );
    for (const secret of leaks()) expect(receivedElsewhere()).not.toContain(secret);
    elsewhere.received.length = 0;
  });
});

describe('a stored secret whose integration was moved behind the use case’s back', () => {
  it.each(TYPES)(
    '%s: opens for no other origin: preview, run and scheduled run fail as auth and send nothing there',
    async (type) => {
      const id = await created(type);
      const field = type === 'oauth2_client_credentials' ? 'auth.tokenUrl' : 'url';
      // A defect elsewhere that writes the new destination but keeps the sealed secret.
      await db.client.send(
        new UpdateCommand({
          TableName: db.tableName,
          Key: keys.pullIntegration(tenant.tenant.id, id),
          UpdateExpression: field === 'url' ? 'SET #url = :url' : 'SET #auth.tokenUrl = :url',
          ExpressionAttributeNames: field === 'url' ? { '#url': 'url' } : { '#auth': 'auth' },
          ExpressionAttributeValues: { ':url': elsewhere.url(field === 'url' ? '/value' : '/token') },
        }),
      );
      const previewed = await preview(id);
      expect(previewed.body).toMatchObject({
        errorClass: 'auth',
        error: 'the stored credentials could not be opened: set them again',
      });
      expect((await run(id)).body).toMatchObject({ outcome: 'failed', errorClass: 'auth' });
      expect((await scheduledRun(id)).batchItemFailures).toEqual([]);
      expect((await stored(id)).lastRun).toMatchObject({ errorClass: 'auth' });
      expect(elsewhere.received).toEqual([]);
    },
  );
});

describe('integration URLs as each role reads them', () => {
  it('ADMIN sees them as stored; EDITOR and VIEWER see every query value as [redacted], on GET /integrations/pull and /{id}', async () => {
    const url = `${source.url('/value')}?api_key=sk_live_query_7b8c&region=eu`;
    const tokenUrl = `${source.url('/token')}?client_key=ck_query_1d2e`;
    const result = await invoke(createHandler, {
      method: 'POST',
      path: '/api/integrations/pull',
      headers: admin(),
      body: {
        name: 'Query keys',
        url,
        auth: { ...authOf('oauth2_client_credentials', tokenUrl) },
        schedule: { every: 'day' },
        bindings: [{ kpiId: tenant.kpis[0]!.id, kpiType: 'BSC_KPI', actual: 'value' }],
      },
    });
    expect(result.status).toBe(201);
    expect(result.body).toMatchObject({ url, auth: { tokenUrl } });
    const id = result.body.id as string;
    const shown = {
      url: `${source.url('/value')}?api_key=[redacted]&region=[redacted]`,
      tokenUrl: `${source.url('/token')}?client_key=[redacted]`,
    };
    for (const role of ['ADMIN', 'EDITOR', 'VIEWER'] as const) {
      const headers = bearer(tenant.users[role].token);
      const one = await get(id, undefined, headers);
      const listed = await invoke(listHandler, {
        path: '/api/integrations/pull',
        headers,
        query: { limit: '100' },
      });
      const item = (listed.body.items as { id: string }[]).find((i) => i.id === id);
      const expected = role === 'ADMIN' ? { url, tokenUrl } : shown;
      for (const view of [one.body, item]) {
        expect(view, role).toMatchObject({ url: expected.url, auth: { tokenUrl: expected.tokenUrl } });
      }
      if (role !== 'ADMIN') {
        for (const text of [JSON.stringify(one.body), JSON.stringify(listed.body)]) {
          expect(text).not.toContain('sk_live_query_7b8c');
          expect(text).not.toContain('ck_query_1d2e');
        }
      }
    }
  });
});
