import * as page from 'web-bundle:kpis';
import middy from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { observe } from '../lib/http/observability';
import { htmlPage } from '../lib/http/page';

/**
 * GET /platform/kpis: the KPI page (issue 15): the tenant's KPIs with sparklines and quiet marks, and
 * a KPI's chart and measurements. One static HTML document built like the key page's.
 */
const core = async (): Promise<APIGatewayProxyResult> => htmlPage(page);

/** Observed like every HTTP function: `X-Request-Id` and an access line (issue 14). */
export const handler = middy(core).use(observe());
