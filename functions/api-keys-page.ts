import * as page from 'web-bundle:api-keys';
import middy from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { observe } from '../lib/http/observability';
import { htmlPage } from '../lib/http/page';

/**
 * GET /platform/api-keys: the API key management page (spec 2.7, 3). One static HTML document whose
 * script and style are inlined at build time (scripts/esbuild-plugins.cjs); the CSP allows exactly them.
 */
const core = async (): Promise<APIGatewayProxyResult> => htmlPage(page);

/** Observed like every HTTP function: `X-Request-Id` and an access line (issue 14). */
export const handler = middy(core).use(observe());
