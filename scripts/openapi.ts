/**
 * `npm run openapi`: writes the OpenAPI document (lib/openapi/document.ts), built from the route
 * modules in functions/, to openapi.json at the repository root. Commit the result: a test fails while
 * the committed file differs from the code.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { isPageRoute, type RouteSpec } from '../lib/http/route';
import { buildOpenApiDocument } from '../lib/openapi/document';
import { OPENAPI_FILE, serializeOpenApi } from '../lib/openapi/file';
import { loadRouteModules } from './routes';

const main = async () => {
  const routes = (await loadRouteModules()).flatMap(({ route }) =>
    route && !isPageRoute(route) ? [route as RouteSpec] : [],
  );
  writeFileSync(resolve(__dirname, '..', OPENAPI_FILE), serializeOpenApi(buildOpenApiDocument(routes)));
  console.log(`Wrote ${OPENAPI_FILE}`);
};

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
