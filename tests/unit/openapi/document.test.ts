import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { errorCatalog, PROBLEM_TYPE_BASE } from '../../../lib/errors';
import { buildOpenApiDocument, OPENAPI_VERSION } from '../../../lib/openapi/document';
import { OPENAPI_FILE, serializeOpenApi } from '../../../lib/openapi/file';
import {
  apiRoutes,
  committedDocument,
  deref,
  describeErrors,
  pointerToken,
  schemaValidator,
} from '../../support/openapi';

const routes = await apiRoutes();
const generated = buildOpenApiDocument(routes) as Record<string, any>;

/** The request bodies' schemas, by the component name they declare. */
const requestSchemas = Object.fromEntries(
  routes.flatMap((route) =>
    route.body
      ? [[z.globalRegistry.get(route.body.schema as z.core.$ZodType)?.id as string, route.body.schema]]
      : [],
  ),
) as Record<string, z.core.$ZodType>;

/** Every operation with its JSON Pointer. */
const operations = () =>
  Object.entries<Record<string, any>>(generated.paths).flatMap(([path, item]) =>
    Object.entries<any>(item).map(([method, operation]) => ({
      path,
      method,
      operation,
      pointer: `#/paths/${pointerToken(path)}/${method}`,
    })),
  );

describe('openapi.json', () => {
  it('names one server, relative to the host that serves it: no fixed address such as localhost:3000', () => {
    expect(generated.servers).toEqual([{ url: '/api', description: expect.any(String) }]);
    expect(JSON.stringify(generated)).not.toMatch(/localhost|127\.0\.0\.1/);
  });

  it('speaks for itself: it cites no section of a document its readers do not have (`spec 2.5`)', () => {
    expect(JSON.stringify(generated).match(/\bspec \d[\d.,– ]*/gi) ?? []).toEqual([]);
  });

  it('is current: the committed file is what `npm run openapi` generates from the code', () => {
    const committed = readFileSync(resolve(__dirname, '..', '..', '..', OPENAPI_FILE), 'utf8');
    // On failure: run `npm run openapi` and commit openapi.json.
    expect(committed).toBe(serializeOpenApi(generated));
  });

  it('is valid OpenAPI 3.1 for a maintained validator (@seriousme/openapi-schema-validator)', async () => {
    const validator = new Validator();
    const result = await validator.validate(committedDocument());
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(generated.openapi).toBe(OPENAPI_VERSION);
  });

  it('the validator does reject a broken document (a response without its description)', async () => {
    const broken = structuredClone(generated);
    delete broken.paths['/health'].get.responses['200'].description;
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it('every schema in it is valid JSON Schema 2020-12 (Ajv, strict mode)', () => {
    const at = schemaValidator(generated);
    for (const name of Object.keys(generated.components.schemas)) {
      expect(() => at(`#/components/schemas/${name}`), name).not.toThrow();
    }
    for (const { operation, pointer } of operations()) {
      for (const [status, response] of Object.entries<any>(operation.responses)) {
        if (response.$ref) continue; // components.responses: checked below
        for (const mediaType of Object.keys(response.content ?? {})) {
          expect(() =>
            at(`${pointer}/responses/${status}/content/${pointerToken(mediaType)}/schema`),
          ).not.toThrow();
        }
      }
    }
    for (const name of Object.keys(generated.components.responses)) {
      expect(() =>
        at(`#/components/responses/${pointerToken(name)}/content/application~1problem+json/schema`),
      ).not.toThrow();
    }
  });

  it('uses the JSON Schema 2020-12 renderings of the handlers’ own zod schemas', () => {
    // Generated, not hand-written: the component is what zod renders for the schema the handler uses.
    const rendered = z.toJSONSchema(requestSchemas.MeasurementInput!, {
      target: 'draft-2020-12',
      io: 'input',
    });
    expect(rendered.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    // A named schema renders as a reference to its definition, which the document's component is.
    expect(rendered.$ref).toBe('#/$defs/MeasurementInput');
    const own = rendered.$defs?.MeasurementInput as { properties?: object; required?: string[] };
    const component = generated.components.schemas.MeasurementInput;
    expect(Object.keys(component.properties)).toEqual(Object.keys(own.properties ?? {}));
    expect(component.required).toEqual(own.required);
    expect(component.additionalProperties).toBe(false);
    // Input side: the period defaults are applied by the service, so clients may omit both.
    expect(component.required).toEqual(['kpiId', 'kpiType', 'actual']);
    expect(generated.components.schemas.BatchRequest.properties.measurements).toMatchObject({
      minItems: 1,
      maxItems: 50,
      items: { $ref: '#/components/schemas/MeasurementInput' },
    });
  });

  it('has every example valid against its schema, and every request example accepted by the handler’s schema', () => {
    const at = schemaValidator(generated, { closed: true });
    let checked = 0;
    for (const { operation, pointer } of operations()) {
      const body = operation.requestBody?.content['application/json'];
      if (body) {
        const validate = at(`${pointer}/requestBody/content/application~1json/schema`);
        const route = routes.find((r) => r.operationId === operation.operationId)!;
        for (const [name, example] of Object.entries<any>(body.examples)) {
          expect(
            validate(example.value),
            `${operation.operationId} ${name}: ${describeErrors(validate)}`,
          ).toBe(true);
          // The examples are written as of September 2026 (an expiresAt must lie in the future).
          vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-09-01T12:00:00Z') });
          try {
            expect(
              z.safeParse(route.body!.schema as z.core.$ZodType, example.value).success,
              `${operation.operationId} ${name}`,
            ).toBe(true);
          } finally {
            vi.useRealTimers();
          }
          checked++;
        }
      }
      for (const [status, declared] of Object.entries<any>(operation.responses)) {
        const response = deref(generated, declared);
        for (const [mediaType, content] of Object.entries<any>(response.content ?? {})) {
          const base = declared.$ref ? declared.$ref : `${pointer}/responses/${status}`;
          const validate = at(`${base}/content/${pointerToken(mediaType)}/schema`);
          const examples = [
            ...(content.example === undefined ? [] : [content.example]),
            ...Object.values<any>(content.examples ?? {}).map((example) => deref(generated, example).value),
          ];
          for (const example of examples) {
            expect(validate(example), `${operation.operationId} ${status}: ${describeErrors(validate)}`).toBe(
              true,
            );
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(60);
  });

  it('declares both security schemes and applies them: x-api-key on push, Bearer JWT on user operations', () => {
    expect(generated.components.securitySchemes).toEqual({
      apiKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-api-key' }),
      bearerAuth: expect.objectContaining({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }),
    });
    const security = Object.fromEntries(
      operations().map(({ operation }) => [operation.operationId, operation.security]),
    );
    expect(security.pushMeasurement).toEqual([{ apiKey: [] }]);
    expect(security.pushMeasurementsBatch).toEqual([{ apiKey: [] }]);
    expect(security.checkPushKey).toEqual([{ apiKey: [] }]);
    expect(security.rollApiKey).toEqual([{ bearerAuth: [] }]);
    expect(security.listKpis).toEqual([{ bearerAuth: [] }]);
    expect(security.login).toEqual([]);
    expect(security.getHealth).toEqual([]);
    expect(security.getOpenApiDocument).toEqual([]);
  });

  it('gives every error status its problem types from lib/errors.ts, as application/problem+json', () => {
    const bySlug = new Map<string, { slug: string; status: number }>(
      Object.values(errorCatalog).map((entry) => [entry.slug, entry]),
    );
    for (const { operation } of operations()) {
      for (const [status, declared] of Object.entries<any>(operation.responses)) {
        if (Number(status) < 400) continue;
        const response = deref(generated, declared);
        expect(Object.keys(response.content)).toEqual(['application/problem+json']);
        const [, narrowing] = response.content['application/problem+json'].schema.allOf;
        expect(narrowing.properties.status).toEqual({ const: Number(status) });
        for (const type of narrowing.properties.type.enum as string[]) {
          const entry = bySlug.get(type.replace(PROBLEM_TYPE_BASE, ''));
          expect(entry?.status, `${operation.operationId} ${status} ${type}`).toBe(Number(status));
          expect(response.description).toContain(`\`${entry?.slug}\``);
        }
      }
    }
  });

  it('documents the push answers: statuses, problem types, RateLimit-* and Retry-After', () => {
    const push = generated.paths['/integrations/push/measurements/batch'].post;
    expect(Object.keys(push.responses)).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '409',
      '413',
      '415',
      '429',
      '500',
      '503',
    ]);
    const types = (status: string) =>
      deref(generated, push.responses[status]).content[
        'application/problem+json'
      ].schema.allOf[1].properties.type.enum.map((type: string) => type.replace(PROBLEM_TYPE_BASE, ''));
    expect(types('401')).toEqual(['invalid-api-key']);
    expect(types('409')).toEqual(['kpi-archived']);
    expect(types('403').sort()).toEqual([
      'api-key-expired',
      'api-key-revoked',
      'feature-not-enabled',
      'kpi-outside-key-scope',
      'source-not-allowed',
      'tenant-inactive',
    ]);
    // The service's per-key limit and API Gateway's usage plan (throttle, monthly quota).
    expect(types('429')).toEqual(['rate-limit-exceeded', 'quota-exceeded']);
    const headers = (status: string) => Object.keys(deref(generated, push.responses[status]).headers);
    expect(headers('200')).toEqual([
      'X-Request-Id',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
    ]);
    expect(headers('429')).toEqual([
      'X-Request-Id',
      'Retry-After',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
    ]);
    // Required on 429: Retry-After only, since API Gateway's own 429 has no RateLimit-* fields.
    const on429 = deref(generated, push.responses['429']).headers;
    expect(Object.keys(on429).filter((name) => deref(generated, on429[name]).required)).toEqual([
      'Retry-After',
    ]);
    expect(headers('503')).toContain('Retry-After');
    expect(headers('401')).toContain('WWW-Authenticate');
    expect(deref(generated, generated.components.headers['Retry-After'])).toMatchObject({ required: true });
  });

  it('documents dry run on both push endpoints: the dryRun parameter, and a 200 that is the stored result or the plan', () => {
    const single = generated.paths['/integrations/push/measurement'].post;
    const batch = generated.paths['/integrations/push/measurements/batch'].post;
    for (const push of [single, batch]) {
      expect(push.parameters).toEqual([
        expect.objectContaining({
          name: 'dryRun',
          in: 'query',
          required: false,
          schema: { type: 'string', enum: ['true', 'false'] },
        }),
      ]);
      // A bad dryRun value is a 400 validation-failed (lib/push/measurement-schema.ts).
      expect(deref(generated, push.responses['400']).description).toContain('`validation-failed`');
    }
    const body = (operation: any, status: string) =>
      operation.responses[status].content['application/json'].schema;
    expect(body(single, '200')).toEqual({
      anyOf: [
        { $ref: '#/components/schemas/Measurement' },
        { $ref: '#/components/schemas/DryRunMeasurement' },
      ],
    });
    expect(body(single, '201')).toEqual({ $ref: '#/components/schemas/Measurement' });
    expect(body(batch, '200')).toEqual({
      anyOf: [{ $ref: '#/components/schemas/BatchResult' }, { $ref: '#/components/schemas/DryRunBatch' }],
    });
    // Each shape has its example, checked against the schema by the examples test above.
    expect(Object.keys(single.responses['200'].content['application/json'].examples)).toEqual([
      'replaced',
      'dryRun',
    ]);
    const planned = generated.components.schemas.PlannedMeasurement.properties.id;
    expect(planned.anyOf ?? planned.type).toContainEqual({ type: 'null' });
  });

  it('documents the key check: the key’s refusals as for a push, but no 403 for the plan and no own 429', () => {
    const check = generated.paths['/integrations/push/key'].get;
    expect(Object.keys(check.responses)).toEqual(['200', '401', '403', '429', '500', '503']);
    expect(check.parameters).toBeUndefined();
    const types = (status: string) =>
      deref(generated, check.responses[status]).content[
        'application/problem+json'
      ].schema.allOf[1].properties.type.enum.map((type: string) => type.replace(PROBLEM_TYPE_BASE, ''));
    // A plan without push is 200 with pushEnabled: false (lib/push/key-check.ts).
    expect(types('403').sort()).toEqual([
      'api-key-expired',
      'api-key-revoked',
      'source-not-allowed',
      'tenant-inactive',
    ]);
    expect(types('429')).toEqual(['rate-limit-exceeded', 'quota-exceeded']);
    const headers = (status: string) => deref(generated, check.responses[status]).headers;
    expect(Object.keys(headers('200'))).toEqual([
      'X-Request-Id',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
    ]);
    // Only API Gateway answers it 429 (it spends no budget): no RateLimit-* there.
    expect(Object.keys(headers('429'))).toEqual(['X-Request-Id', 'Retry-After']);
  });

  it('documents the roll: an optional body, the 409s of rolling and the new key with `previous`', () => {
    const roll = generated.paths['/api-keys/{id}/roll'].post;
    expect(roll.requestBody.required).toBe(false);
    expect(roll.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/RollApiKeyRequest',
    });
    expect(roll.responses['201'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/RolledApiKey',
    });
    expect(generated.components.schemas.RolledApiKey.required).toEqual(
      expect.arrayContaining(['key', 'previous', 'replaces', 'kpiIds', 'createdBy']),
    );
    const types = deref(generated, roll.responses['409']).content['application/problem+json'].schema.allOf[1]
      .properties.type.enum;
    expect(types.map((type: string) => type.replace(PROBLEM_TYPE_BASE, '')).sort()).toEqual([
      'api-key-already-rolled',
      'api-key-limit-reached',
      'api-key-not-active',
    ]);
    expect(Object.keys(roll.responses)).toEqual(
      expect.arrayContaining(['201', '400', '401', '403', '404', '409', '413', '415']),
    );
    // Creating takes a body; only the roll's is optional.
    expect(generated.paths['/api-keys'].post.requestBody.required).toBe(true);
  });

  it('declares X-Request-Id on every response: required where a function answers, not where API Gateway may', () => {
    const requestId = (operation: any, status: string) =>
      deref(generated, deref(generated, operation.responses[status]).headers['X-Request-Id']);
    for (const { operation } of operations()) {
      for (const status of Object.keys(operation.responses)) {
        expect(requestId(operation, status), `${operation.operationId} ${status}`).toBeDefined();
        if (Number(status) < 400) expect(requestId(operation, status).required).toBe(true);
      }
    }
    const push = generated.paths['/integrations/push/measurement'].post;
    const login = generated.paths['/auth/login'].post;
    // The authorizer (an unknown key; a key that may not push, denied at the edge), the usage plan and
    // the stage throttle answer without it.
    for (const status of ['401', '403', '429', '500', '503'])
      expect(requestId(push, status).required).toBe(false);
    for (const status of ['400', '404']) expect(requestId(push, status).required).toBe(true);
    expect(requestId(login, '401').required).toBe(true);
    expect(requestId(login, '500').required).toBe(true);
    expect(requestId(login, '429').required).toBe(false);
  });

  it('describes every parameter and every request field', () => {
    for (const { operation } of operations()) {
      for (const parameter of operation.parameters ?? []) {
        expect(
          deref(generated, parameter).description,
          `${operation.operationId} ${parameter.name}`,
        ).toBeTruthy();
      }
    }
    for (const name of Object.keys(requestSchemas)) {
      const schema = generated.components.schemas[name];
      expect(schema.description, name).toBeTruthy();
      // A body that is a list (a partner's report) describes the fields of its items.
      const fields = schema.type === 'array' ? deref(generated, schema.items).properties : schema.properties;
      for (const [field, property] of Object.entries<any>(fields)) {
        expect(property.description, `${name}.${field}`).toBeTruthy();
      }
    }
  });

  it('has one operation per route entry, with unique operationIds', () => {
    const ids = operations().map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(routes.map((route) => route.operationId).sort());
  });
});
