import { defineDeployment } from '../lib/deployment';
import { htmlPage } from '../lib/http/page';
import { definePage } from '../lib/http/route';
import { pageEndpoint } from '../lib/runtime';

/**
 * GET /platform/people: the tenant's people (ADMIN; the API decides, the page only asks). One static
 * HTML document whose script and style are inlined at build time (scripts/esbuild-plugins.cjs); the
 * CSP allows exactly them.
 */
export const route = definePage(['/platform/people']);

/**
 * A static page like the audit page.
 */
export const deployment = defineDeployment({
  memorySize: 256,
});

/** The page is loaded at the first request (it is bundled either way): the route declaration alone loads without it. */
export const handler = pageEndpoint(async () => htmlPage(await import('web-bundle:people')));
