import middy from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { corsOrigins } from '../lib/config';
import { type Kpi, listKpis } from '../lib/db/kpis';
import { jwtAuth } from '../lib/http/jwt-auth';
import { httpErrorHandler } from '../lib/http/middleware';
import { cors, observe } from '../lib/http/observability';
import type { KpiPage } from '../lib/http/response-schemas';
import { json } from '../lib/http/responses';
import { parsePageQuery } from '../lib/http/schemas';
import type { UserContext } from '../lib/http/types';
import { config, db, tokens } from '../lib/runtime';

const toResponse = ({ tenantId: _tenant, ...kpi }: Kpi) => kpi;

/** GET /kpis: the tenant's KPIs, so users find the `kpiId` and `kpiType` to push. */
const core = async (event: APIGatewayProxyEvent, context: UserContext) => {
  const page = await listKpis(db, context.user.tenantId, parsePageQuery(event));
  return json<KpiPage>(200, { ...page, items: page.items.map(toResponse) });
};

export const handler = middy(core)
  .use(observe())
  .use(cors(corsOrigins(config)))
  .use(httpErrorHandler())
  .use(jwtAuth({ tokens }));
