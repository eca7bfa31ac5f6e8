import middy from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { corsOrigins } from '../lib/config';
import { listKpis } from '../lib/db/kpis';
import { jwtAuth } from '../lib/http/jwt-auth';
import { httpErrorHandler } from '../lib/http/middleware';
import { cors, observe } from '../lib/http/observability';
import type { KpiPage } from '../lib/http/response-schemas';
import { json } from '../lib/http/responses';
import { parseKpiListQuery } from '../lib/http/schemas';
import type { UserContext } from '../lib/http/types';
import { listKpisWithActivity } from '../lib/kpis/overview';
import { kpiView } from '../lib/kpis/views';
import { config, db, tokens } from '../lib/runtime';

/**
 * GET /kpis: the tenant's KPIs, so users find the `kpiId` and `kpiType` to push; `?type=` filters,
 * `?include=activity` adds each KPI's newest measurements and quiet flag (the KPI page, issue 15).
 */
const core = async (event: APIGatewayProxyEvent, context: UserContext) => {
  const { include, type, ...page } = parseKpiListQuery(event);
  const tenantId = context.user.tenantId;
  const result =
    include === 'activity'
      ? await listKpisWithActivity(db, tenantId, page, { type }, Date.now())
      : await listKpis(db, tenantId, page, { type });
  return json<KpiPage>(200, { ...result, items: result.items.map(kpiView) });
};

export const handler = middy(core)
  .use(observe())
  .use(cors(corsOrigins(config)))
  .use(httpErrorHandler())
  .use(jwtAuth({ tokens }));
