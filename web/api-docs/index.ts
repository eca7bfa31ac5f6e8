/**
 * Starts Swagger UI on GET /api/docs (functions/api-docs.ts) with the service's own document. The
 * page is at `<base>/docs`, so the relative `openapi.json` is `<base>/openapi.json` on the same host,
 * whatever the stage or domain. "Try it out" sends requests to the document's `servers`: they are
 * replaced by that same base URL, so requests go to the host, port and stage that served this page
 * (the committed document can only name `/api`, which misses a stage's path on AWS).
 */
declare const SwaggerUIBundle: (options: Record<string, unknown>) => unknown;

const base = new URL('.', window.location.href).href.replace(/\/$/, '');

const start = async () => {
  const response = await fetch('openapi.json');
  const spec = (await response.json()) as { servers?: unknown };
  spec.servers = [{ url: base, description: 'The host that served this page' }];
  SwaggerUIBundle({
    spec,
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
};

start().catch((error: unknown) => {
  const target = document.getElementById('swagger-ui');
  if (target)
    target.textContent = `The API document could not be loaded (${String(error)}). It is at openapi.json.`;
});
