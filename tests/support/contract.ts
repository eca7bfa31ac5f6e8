import { committedDocument, deref, describeErrors, pointerToken, schemaValidator } from './openapi';

/**
 * Contract check: a response the service sent, judged against the committed OpenAPI
 * document. Every request of the end-to-end tests passes through `request()` (./http.ts), which calls
 * `assertContract`, so each response they receive is checked: the operation and status are documented,
 * the Content-Type is the documented one, the body matches the schema (with no undocumented member),
 * and every required header is there.
 */
export interface ObservedResponse {
  method: string;
  /** The path below the base URL (`/kpis?limit=3`), as the tests call it. */
  path: string;
  status: number;
  headers: Headers;
  text: string;
}

const document = committedDocument();
const validatorAt = schemaValidator(document, { strict: false, closed: true });

const templates = Object.keys(document.paths).map((template) => ({
  template,
  pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));

const matchPath = (path: string) => {
  const bare = path.split('?')[0] ?? path;
  return (
    templates.find(({ template }) => template === bare) ?? templates.find(({ pattern }) => pattern.test(bare))
  );
};

export const contractViolations = (observed: ObservedResponse): string[] => {
  const what = `${observed.method} ${observed.path} → ${observed.status}`;
  const matched = matchPath(observed.path);
  if (!matched) return [`${what}: the path is not in the document`];
  const method = observed.method.toLowerCase();
  const operation = document.paths[matched.template][method];
  if (!operation) return [`${what}: ${method.toUpperCase()} ${matched.template} is not in the document`];

  const declared = operation.responses[String(observed.status)];
  if (!declared) {
    return [`${what}: status ${observed.status} is not documented for ${operation.operationId}`];
  }
  // Pointer to the response object, where its schema is: in the operation or in components.responses.
  const responsePointer = declared.$ref
    ? (declared.$ref as string).replace(/^#/, '')
    : `/paths/${pointerToken(matched.template)}/${method}/responses/${observed.status}`;
  const response = deref(document, declared);
  const violations: string[] = [];

  for (const [name, header] of Object.entries<any>(response.headers ?? {})) {
    const spec = deref(document, header);
    const value = observed.headers.get(name);
    if (value === null) {
      if (spec.required) violations.push(`${what}: required header ${name} is missing`);
    } else if (spec.schema?.type === 'integer' && !/^\d+$/.test(value)) {
      violations.push(`${what}: header ${name} is "${value}", not an integer`);
    }
  }

  const mediaTypes = Object.keys(response.content ?? {});
  const contentType = (observed.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (mediaTypes.length === 0) {
    if (observed.text !== '') violations.push(`${what}: a body was sent where the document declares none`);
    return violations;
  }
  if (!mediaTypes.includes(contentType)) {
    violations.push(`${what}: Content-Type "${contentType}" is not one of ${mediaTypes.join(', ')}`);
    return violations;
  }
  let body: unknown;
  try {
    body = JSON.parse(observed.text);
  } catch {
    return [...violations, `${what}: the body is not JSON`];
  }
  const validate = validatorAt(`#${responsePointer}/content/${pointerToken(contentType)}/schema`);
  if (!validate(body))
    violations.push(`${what}: body does not match the schema: ${describeErrors(validate)}`);
  return violations;
};

/** Throws when the response breaks the document, naming every violation. */
export const assertContract = (observed: ObservedResponse): void => {
  const violations = contractViolations(observed);
  if (violations.length > 0) {
    throw new Error(`Response breaks the OpenAPI document (openapi.json):\n- ${violations.join('\n- ')}`);
  }
};
