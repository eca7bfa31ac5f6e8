import middy from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { corsOrigins } from '../lib/config';
import { getKpiOfTenant } from '../lib/db/kpis';
import { listMeasurements } from '../lib/db/measurements';
import { AppError } from '../lib/errors';
import { jwtAuth } from '../lib/http/jwt-auth';
import { httpErrorHandler } from '../lib/http/middleware';
import { cors, observe } from '../lib/http/observability';
import type { MeasurementPage } from '../lib/http/response-schemas';
import { json } from '../lib/http/responses';
import { parsePageQuery } from '../lib/http/schemas';
import type { UserContext } from '../lib/http/types';
import { config, db, tokens } from '../lib/runtime';

/** GET /kpis/{kpiId}/measurements: what push stored, ordered by period. Another tenant's KPI is 404. */
const core = async (event: APIGatewayProxyEvent, context: UserContext) => {
  const page = parsePageQuery(event);
  const kpiId = event.pathParameters?.kpiId ?? '';
  const kpi = await getKpiOfTenant(db, context.user.tenantId, kpiId);
  if (!kpi) throw new AppError('NOT_FOUND', `KPI ${kpiId} not found.`);
  return json<MeasurementPage>(200, await listMeasurements(db, kpi.id, page));
};

export const handler = middy(core)
  .use(observe())
  .use(cors(corsOrigins(config)))
  .use(httpErrorHandler())
  .use(jwtAuth({ tokens }));
