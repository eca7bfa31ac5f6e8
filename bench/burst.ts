import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { hashApiKey } from '../lib/api-keys/key-format';
import { createApiKey } from '../lib/api-keys/service';
import type { Database } from '../lib/db/client';
import { keys } from '../lib/db/keys';
import { createKpi } from '../lib/db/kpis';
import { createTenant } from '../lib/db/tenants';
import { apiEvent, lambdaContext } from '../scripts/local/events';
import { type Call, recordCalls } from './capacity';

/** 150 concurrent pushes with one Free key, as an attack harness sends them. */
export const BURST_PUSHES = 150;
/** The Free plan's per-key limit in a minute (lib/config.ts's default). */
export const FREE_LIMIT = 60;

export interface BurstResults {
  pushes: number;
  limit: number;
  /** Answers by status. */
  answers: Record<string, number>;
  /** By window start (ISO): the requests the service counted in it, from the key's usage item. */
  countedPerWindow: Record<string, number>;
  /** 201s beyond what the counters let in (Σ min(counted, limit) over the windows): 0 when exact. */
  admittedOverLimit: number;
  /** DynamoDB calls (each a `send`, its retries inside) per push, and the SDK's retries in all. */
  requestsPerPush: number;
  retries: number;
}

interface PushModule {
  handler: (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
  db: Database;
}

/**
 * The burst through one warm push container (the bench build of push-measurement, its own DynamoDB
 * client), each push vouched for by the authorizer as API Gateway passes it: what the service answers,
 * how many it admitted per window by its own counters, and what each push asked of DynamoDB.
 */
export const measureBurst = async (db: Database, push: PushModule): Promise<BurstResults> => {
  const tenant = await createTenant(db, {
    name: 'Burst',
    plan: 'free',
    features: ['kpi_push_measurement'],
    active: true,
  });
  const kpi = await createKpi(db, tenant.id, { type: 'BSC_KPI', name: 'Burst', period: 'day' });
  const key = await createApiKey(db, { tenantId: tenant.id, name: 'burst' });
  const authorizer = { keyId: key.id, tenantId: tenant.id, status: 'active' };
  const calls: Call[] = [];
  const stop = recordCalls(push.db.client as DynamoDBDocumentClient, calls);
  let retries = 0;
  push.db.client.middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      const attempts = (result.output as { $metadata?: { attempts?: number } }).$metadata?.attempts ?? 1;
      retries += attempts - 1;
      return result;
    },
    { step: 'initialize', name: 'countRetries' },
  );
  let answers: number[];
  try {
    answers = await Promise.all(
      Array.from({ length: BURST_PUSHES }, async (_, i) => {
        const day = new Date(Date.UTC(2001, 0, 1 + i)).toISOString().slice(0, 10);
        const answer = await push.handler(
          apiEvent({
            method: 'POST',
            path: '/api/integrations/push/measurement',
            headers: { 'x-api-key': key.key },
            authorizer,
            body: { kpiId: kpi.id, kpiType: kpi.type, actual: i, periodStart: day, periodEnd: day },
          }),
          lambdaContext(),
        );
        return answer.statusCode;
      }),
    );
  } finally {
    stop();
    push.db.client.middlewareStack.remove('countRetries');
  }
  const { Items = [] } = await db.client.send(
    new QueryCommand({
      TableName: db.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.apiKeyUsageDays(hashApiKey(key.key)).pk },
      ConsistentRead: true,
    }),
  );
  const counted = new Map<number, number>();
  for (const item of Items) {
    for (const [name, value] of Object.entries(item)) {
      const start = /^w(\d+)$/.exec(name)?.[1];
      if (start) counted.set(Number(start), Number(value));
    }
  }
  const byStatus: Record<string, number> = {};
  for (const status of answers) byStatus[status] = (byStatus[status] ?? 0) + 1;
  const allowed = [...counted.values()].reduce((sum, n) => sum + Math.min(n, FREE_LIMIT), 0);
  return {
    pushes: BURST_PUSHES,
    limit: FREE_LIMIT,
    answers: byStatus,
    countedPerWindow: Object.fromEntries(
      [...counted].map(([start, n]) => [new Date(start * 1000).toISOString(), n]),
    ),
    admittedOverLimit: Math.max(0, (byStatus[201] ?? 0) - allowed),
    requestsPerPush: Math.round((calls.length / BURST_PUSHES) * 100) / 100,
    retries,
  };
};
