import * as z from 'zod/mini';
import { defineDeployment } from '../lib/deployment';
import { defineRoute, reply } from '../lib/http/route';
import { publicEndpoint } from '../lib/runtime';
import committed from '../openapi.json';

/**
 * GET /api/openapi.json, without authentication: the committed openapi.json, which `npm run openapi`
 * generates from the route modules and a test keeps current, bundled as data.
 */
const documentSchema = z.looseObject({
  openapi: z.string(),
  info: z.looseObject({}),
  paths: z.looseObject({}),
});
const document: z.output<typeof documentSchema> = committed;

export const route = defineRoute({
  operationId: 'getOpenApiDocument',
  method: 'get',
  path: '/openapi.json',
  tag: 'Service',
  summary: 'This OpenAPI document',
  description:
    'No authentication. The same file as `openapi.json` in the repository. A reference page rendered from it is at `/api/docs`.',
  auth: 'none',
  static: true,
  responses: {
    200: {
      description: 'The OpenAPI 3.1 document.',
      schema: documentSchema,
    },
  },
  errors: [],
  core: async () =>
    reply(200, document, {
      // Public and the same for everyone until the next deploy; 5 minutes keeps a deploy visible soon.
      'Cache-Control': 'public, max-age=300',
      'X-Content-Type-Options': 'nosniff',
    }),
});

/**
 * Static: no data, no JWT key (logs and X-Ray only).
 */
export const deployment = defineDeployment({
  name: 'openApiDocument',
  memorySize: 256,
});

export const handler = publicEndpoint(route);
