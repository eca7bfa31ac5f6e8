import { contentSecurityPolicy, html } from 'web-bundle:api-keys';
import type { APIGatewayProxyResult } from 'aws-lambda';

/**
 * GET /platform/api-keys: the API key management page (spec 2.7, 3). One static HTML document whose
 * script and style are inlined at build time (scripts/esbuild-plugins.cjs); the CSP allows exactly them.
 */
export const handler = async (): Promise<APIGatewayProxyResult> => ({
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
