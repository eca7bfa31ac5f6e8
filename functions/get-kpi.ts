import middy from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { corsOrigins } from '../lib/config';
import { getKpiWithMeasurements } from '../lib/db/kpis';
import { AppError } from '../lib/errors';
import { jwtAuth } from '../lib/http/jwt-auth';
import { httpErrorHandler } from '../lib/http/middleware';
import { cors, observe } from '../lib/http/observability';
import type { KpiDetailResponse } from '../lib/http/response-schemas';
import { json } from '../lib/http/responses';
import { parseKpiId, parsePageQuery } from '../lib/http/schemas';
import type { UserContext } from '../lib/http/types';
import { kpiView } from '../lib/kpis/views';
import { config, db, tokens } from '../lib/runtime';

/**
 * GET /kpis/{kpiId}: one KPI with its measurements in period order, each with when it arrived and the
 * key that pushed it (the KPI page's detail, issue 15). One Query; `?limit`/`?cursor` page through the
 * measurements. Another tenant's KPI is 404, like a missing one.
 */
const core = async (event: APIGatewayProxyEvent, context: UserContext) => {
  const page = parsePageQuery(event);
  const kpiId = parseKpiId(event);
  const found = await getKpiWithMeasurements(db, context.user.tenantId, kpiId, page);
  if (!found) throw new AppError('NOT_FOUND', `KPI ${kpiId} not found.`);
  return json<KpiDetailResponse>(200, {
    ...kpiView(found.kpi),
    measurements: found.measurements.items,
    ...nextCursor(found),
  });
};

const nextCursor = ({ measurements }: { measurements: { nextCursor?: string } }) =>
  measurements.nextCursor ? { nextCursor: measurements.nextCursor } : {};

export const handler = middy(core)
  .use(observe())
  .use(cors(corsOrigins(config)))
  .use(httpErrorHandler())
  .use(jwtAuth({ tokens }));
