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
 * GET /api/problems and GET /api/problems/{slug}: what each problem `type` means, the page a person
 * reaches from a problem's slug.
 */
export const route = definePage(['/api/docs', '/api/docs/{asset}', '/api/problems', '/api/problems/{slug}']);

const securityHeaders = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

/** Pages without scripts: styles from this function only. */
const staticPolicy =
  "default-src 'none'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const problemPage = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  const { index, pages } = await import('api-docs:problems');
  const slug = event.pathParameters?.slug;
  const body = slug === undefined ? index : Object.hasOwn(pages, slug) ? pages[slug] : undefined;
  if (body === undefined) throw new AppError('NOT_FOUND', `No problem type ${slug?.slice(0, 100)} here.`);
  return {
    statusCode: 200,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': staticPolicy,
      'Cache-Control': 'public, max-age=300',
      ...securityHeaders,
    },
    body,
  };
};

const core = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  if (event.pathParameters?.slug !== undefined || /\/problems\/?$/.test(event.path))
    return problemPage(event);
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
