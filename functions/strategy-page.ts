import { defineDeployment } from '../lib/deployment';
import { htmlPage } from '../lib/http/page';
import { definePage } from '../lib/http/route';
import { pageEndpoint } from '../lib/runtime';

/**
 * GET /platform/strategy: the strategy page (cycles with their KPIs and status counts; the forms that create and change KPIs, targets and cycles). One static HTML document whose script and
 * style are inlined at build time (scripts/esbuild-plugins.cjs); the CSP allows exactly them.
 */
export const route = definePage(['/platform/strategy']);

/**
 * A static page like the key page.
 */
export const deployment = defineDeployment({
  memorySize: 256,
});

/** The page is loaded at the first request (it is bundled either way): the route declaration alone loads without it. */
export const handler = pageEndpoint(async () => htmlPage(await import('web-bundle:strategy')));
