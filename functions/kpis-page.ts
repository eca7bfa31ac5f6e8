import { defineDeployment } from '../lib/deployment';
import { htmlPage } from '../lib/http/page';
import { definePage } from '../lib/http/route';
import { pageEndpoint } from '../lib/runtime';

/**
 * GET /platform/kpis: the KPI page: the tenant's KPIs with sparklines and quiet marks, and a KPI's
 * chart and measurements. One static HTML document built like the key page's.
 */
export const route = definePage(['/platform/kpis']);

/**
 * A static page like the key page.
 */
export const deployment = defineDeployment({
  memorySize: 256,
});

/** The page is loaded at the first request (it is bundled either way): the route declaration alone loads without it. */
export const handler = pageEndpoint(async () => htmlPage(await import('web-bundle:kpis')));
