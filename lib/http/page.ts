import type { APIGatewayProxyResult } from 'aws-lambda';

/**
 * The response of every page function (web/, built by scripts/esbuild-plugins.cjs): one static HTML
 * document whose script and style are inlined, a CSP allowing exactly those, and headers that keep it
 * out of frames and caches (it is the same for everyone, but `no-store` keeps a stale page from
 * outliving a deploy).
 */
export const htmlPage = (
  {
    html,
    contentSecurityPolicy,
  }: {
    html: string;
    contentSecurityPolicy: string;
  },
  statusCode: 200 | 404 = 200,
): APIGatewayProxyResult => ({
  statusCode,
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
