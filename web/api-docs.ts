/**
 * Starts Swagger UI on GET /api/docs (functions/api-docs.ts) with the service's own document. The
 * page is at `…/api/docs`, so the relative `openapi.json` is `…/api/openapi.json` on the same host,
 * whatever the stage or domain.
 */
declare const SwaggerUIBundle: (options: Record<string, unknown>) => unknown;

SwaggerUIBundle({
  url: 'openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  // The default would load a badge from validator.swagger.io: the page contacts no other host.
  validatorUrl: null,
  // Never read the document URL or configuration from the page's query string (an XSS vector in the past).
  queryConfigEnabled: false,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  displayRequestDuration: true,
  tryItOutEnabled: false,
});
