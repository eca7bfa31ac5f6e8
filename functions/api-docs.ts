import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { defineDeployment } from '../lib/deployment';
import { AppError } from '../lib/errors';
import { definePage } from '../lib/http/route';
import { pageEndpoint } from '../lib/runtime';

/**
 * GET /api/docs: the API reference, Swagger UI rendering /api/openapi.json, and
 * GET /api/docs/{asset}: the files the page loads. Everything comes from this function (built by
 * scripts/esbuild-api-docs.cjs), so the page contacts no other host, and no other function carries
 * Swagger UI. Asset names contain a content hash: they can be cached for good.
 */
export const route = definePage(['/api/docs', '/api/docs/{asset}']);

const securityHeaders = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

const core = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  // Loaded at the first request (bundled either way): the route declaration alone loads without it.
  const { assets, contentSecurityPolicy, html } = await import('api-docs:swagger-ui');
  const name = event.pathParameters?.asset;
  if (name === undefined) {
    return {
      statusCode: 200,
      headers: {
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': contentSecurityPolicy,
        'Cache-Control': 'public, max-age=300',
        ...securityHeaders,
      },
      body: html,
    };
  }
  const asset = Object.hasOwn(assets, name) ? assets[name] : undefined;
  if (!asset) throw new AppError('NOT_FOUND', `No file ${name.slice(0, 100)} here.`);
  return {
    statusCode: 200,
    headers: {
      'Content-Type': asset.contentType,
      'Cache-Control': 'public, max-age=31536000, immutable',
      ...securityHeaders,
    },
    body: asset.body,
  };
};

/**
 * Static: no data, no JWT key (logs and X-Ray only).
 */
export const deployment = defineDeployment({
  memorySize: 256,
});

export const handler = pageEndpoint(core);
