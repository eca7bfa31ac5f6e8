import { body } from 'openapi-document:json';
import middy from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { observe } from '../lib/http/observability';

/**
 * GET /api/openapi.json (issue 12), without authentication: the committed openapi.json, which
 * `npm run openapi` generates from the route list and the handlers' schemas (lib/openapi) and a test
 * keeps current. Bundled as data (gzip-compressed by scripts/esbuild-openapi.cjs, inflated once per
 * container), so this function carries no zod, stays within the bundle budget and does no work per
 * request.
 */

const core = async (): Promise<APIGatewayProxyResult> => ({
  statusCode: 200,
  headers: {
    'Content-Type': 'application/json',
    // Public and the same for everyone until the next deploy; 5 minutes keeps a deploy visible soon.
    'Cache-Control': 'public, max-age=300',
    'X-Content-Type-Options': 'nosniff',
  },
  body,
});

/** Observed like every HTTP function: `X-Request-Id` and an access line (issue 14). */
export const handler = middy(core).use(observe());
