import { defineDeployment } from '../lib/deployment';
import { htmlPage } from '../lib/http/page';
import { definePage } from '../lib/http/route';
import { pageEndpoint } from '../lib/runtime';

/**
 * GET /platform/accept: where a one-time link (an invitation or a password reset) leads. The token is
 * in the URL's fragment, which the browser keeps to itself: this request, and so every log, has none.
 * The path is the one the links name (ACCEPT_PAGE_PATH, lib/auth/people.ts; a unit test keeps them
 * equal), written out so that the page's bundle holds no account code.
 * One static HTML document whose script and style are inlined at build time
 * (scripts/esbuild-plugins.cjs); the CSP allows exactly them.
 */
export const route = definePage(['/platform/accept']);

/**
 * A static page: no data, no JWT key (logs and X-Ray only).
 */
export const deployment = defineDeployment({
  memorySize: 256,
});

/** The page is loaded at the first request (it is bundled either way): the route declaration alone loads without it. */
export const handler = pageEndpoint(async () => htmlPage(await import('web-bundle:accept')));
