import { defineDeployment } from '../lib/deployment';
import { htmlPage } from '../lib/http/page';
import { definePage } from '../lib/http/route';
import { pageEndpoint } from '../lib/runtime';

/**
 * GET /platform/{path+}: every address under /platform/ that is no page gets an HTML 404 page that
 * lists the pages there are, not the API's JSON problem. The pages' own routes are more specific, so
 * API Gateway sends them to their functions.
 */
export const route = definePage(['/platform/{path+}']);

/**
 * A static page like the others.
 */
export const deployment = defineDeployment({
  memorySize: 256,
});

/** The page is loaded at the first request (it is bundled either way): the route declaration alone loads without it. */
export const handler = pageEndpoint(async () => htmlPage(await import('web-bundle:not-found'), 404));
