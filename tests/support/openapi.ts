import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { isPageRoute, type RouteSpec } from '../../lib/http/route';
import { OPENAPI_FILE } from '../../lib/openapi/file';
import { loadRouteModules } from '../../scripts/routes';

/** The committed openapi.json, as clients get it (GET /api/openapi.json serves this file). */
export const committedDocument = (): Record<string, any> =>
  JSON.parse(readFileSync(resolve(__dirname, '..', '..', OPENAPI_FILE), 'utf8'));

/** RFC 6901: a JSON Pointer token. */
export const pointerToken = (token: string) => token.replaceAll('~', '~0').replaceAll('/', '~1');

/** The value at a local reference (`#/components/…`). */
export const resolvePointer = (document: Record<string, any>, ref: string): any =>
  ref
    .replace(/^#\//, '')
    .split('/')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce((node, token) => node?.[token], document);

/** Follows `$ref`s of reusable objects (responses, headers, examples) to the object itself. */
export const deref = (document: Record<string, any>, node: any): any =>
  node && typeof node.$ref === 'string' ? deref(document, resolvePointer(document, node.$ref)) : node;

/**
 * JSON Schema 2020-12 validation (OAS 3.1 §4.8.24) of parts of an OpenAPI document with Ajv. The
 * document is added whole, so schemas are compiled by pointer and their `$ref`s resolve as in the file.
 * OAS adds the keywords `example`, `discriminator`, `xml` and `externalDocs` to the dialect.
 *
 * `closed`: object schemas in `#/components/schemas` that leave additional members open get
 * `unevaluatedProperties: false`, the named ones and those nested in them (a KPI's `activity`, a
 * batch's items, a key check's `rateLimit`), so a validated body may carry no member the document
 * does not name, at any depth.
 */
/** Every object schema within `schema` that declares its members and leaves others open is closed. */
const close = (schema: unknown): void => {
  if (Array.isArray(schema)) {
    schema.forEach(close);
    return;
  }
  if (schema === null || typeof schema !== 'object') return;
  const node = schema as Record<string, unknown>;
  if (node.type === 'object' && node.properties && node.additionalProperties === undefined) {
    node.unevaluatedProperties = false;
  }
  for (const [key, inner] of Object.entries(node)) {
    // Examples are data, not schemas.
    if (key !== 'example' && key !== 'examples' && key !== 'default') close(inner);
  }
};

export const schemaValidator = (document: Record<string, any>, { strict = true, closed = false } = {}) => {
  const copy = structuredClone(document);
  if (closed) for (const schema of Object.values(copy.components?.schemas ?? {})) close(schema);
  const ajv = new Ajv2020({ strict, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addVocabulary(['example', 'discriminator', 'xml', 'externalDocs']);
  // The document's own members are not schemas: declared as annotation keywords, Ajv leaves them alone
  // and compiles only the subschemas that are referenced by pointer.
  ajv.addVocabulary(Object.keys(copy).filter((key) => !ajv.getKeyword(key)));
  ajv.addSchema(copy, 'openapi.json');
  const compiled = new Map<string, ValidateFunction>();
  return (pointer: string): ValidateFunction => {
    let validate = compiled.get(pointer);
    if (!validate) {
      validate = ajv.compile({ $ref: `openapi.json${pointer}` });
      compiled.set(pointer, validate);
    }
    return validate;
  };
};

export const describeErrors = (validate: ValidateFunction) =>
  (validate.errors ?? []).map((error) => `${error.instancePath || '(root)'} ${error.message}`).join('; ');

/** The API's route declarations, from the route modules in functions/ (scripts/routes.ts). */
export const apiRoutes = async (): Promise<RouteSpec[]> =>
  (await loadRouteModules()).flatMap(({ route }) =>
    route && !isPageRoute(route) ? [route as RouteSpec] : [],
  );
