import { contentSecurityPolicy, html } from 'web-bundle:api-keys';
import middy from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { observe } from '../lib/http/observability';

/**
 * GET /platform/api-keys: the API key management page (spec 2.7, 3). One static HTML document whose
 * script and style are inlined at build time (scripts/esbuild-plugins.cjs); the CSP allows exactly them.
 */
const core = async (): Promise<APIGatewayProxyResult> => ({
  statusCode: 200,
  headers: {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': contentSecurityPolicy,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cache-Control': 'no-store',
  },
  body: html,
});

/** Observed like every HTTP function: `X-Request-Id` and an access line (issue 14). */
export const handler = middy(core).use(observe());
