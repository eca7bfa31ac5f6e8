/**
 * `npm run openapi`: writes the OpenAPI document (lib/openapi/document.ts) to openapi.json at the
 * repository root. Commit the result: a test fails while the committed file differs from the code.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildOpenApiDocument } from '../lib/openapi/document';
import { OPENAPI_FILE, serializeOpenApi } from '../lib/openapi/file';

writeFileSync(resolve(__dirname, '..', OPENAPI_FILE), serializeOpenApi(buildOpenApiDocument()));
console.log(`Wrote ${OPENAPI_FILE}`);
