import * as z from 'zod/mini';
import {
  ALLOWED_SOURCES_INPUT,
  allowedSourcesSchema,
  keyNameSchema,
  kpiScopeSchema,
} from '../lib/api-keys/inputs';
import { updateApiKey } from '../lib/api-keys/service';
import { apiKeyView, apiKeyViewSchema } from '../lib/api-keys/views';
import { defineDeployment } from '../lib/deployment';
import { defineRoute, reply } from '../lib/http/route';
import { apiKeyIdParams } from '../lib/http/schemas';
import { apiKeyExample, KPI_ID } from '../lib/openapi/examples';
import { db, jwtEndpoint } from '../lib/runtime';

/**
 * What a change of a key may set: its name, its source allowlist, its KPI scope, or several. A field
 * left out stays as it is; `allowedSources: null` lets the key work from any address again, and
 * `kpiIds: null` lets it push to every KPI again. A body that sets nothing is
 * a mistake, not a change: 400.
 */
const updateApiKeyRequestSchema = z
  .strictObject({
    name: z.optional(
      keyNameSchema.check(z.describe('A new name, 1 to 100 characters after trimming. Absent: unchanged.')),
    ),
    allowedSources: z.optional(
      z
        .nullable(allowedSourcesSchema)
        .check(
          z.describe(
            `${ALLOWED_SOURCES_INPUT} The list sent replaces the key’s list. \`null\` = any address; absent: unchanged.`,
          ),
        ),
    ),
    kpiIds: z.optional(
      z
        .nullable(kpiScopeSchema)
        .check(
          z.describe(
            'A new KPI scope: 1 to 100 ids of KPIs of the tenant, each once; it replaces the key’s scope. `null` = every KPI; absent: unchanged.',
          ),
        ),
    ),
  })
  .check(
    z.refine(
      (body) => body.name !== undefined || body.allowedSources !== undefined || body.kpiIds !== undefined,
      { message: 'send at least one of name, allowedSources and kpiIds' },
    ),
    z.meta({
      id: 'UpdateApiKeyRequest',
      description: 'The fields to change; those left out stay as they are.',
    }),
  );

/**
 * PATCH /api-keys/{id} (ADMIN): renames an active key, sets where it may be used from, or which KPIs
 * it may push to. A revoked or
 * expired key is 409: it keeps what it was when it stopped.
 */
export const route = defineRoute({
  operationId: 'updateApiKey',
  method: 'patch',
  path: '/api-keys/{id}',
  tag: 'API keys',
  summary: 'Change an API key',
  description: [
    'ADMIN. Renames an active key, sets the source addresses it works from (`allowedSources`), or the KPIs it may push to (`kpiIds`), or several of them; the fields left out stay as they are, and the key itself (its raw value and expiry) does not change. `allowedSources: null` lets the key work from any address again, `kpiIds: null` lets it push to every KPI again. An id in `kpiIds` that is not a KPI of the tenant is 400 naming it. A roll passes the scope and sources on to the new key.',
    '',
    'A narrowed list or scope applies to the very next request: the push handlers check the source again from a fresh read of the key, even while API Gateway still holds an earlier answer of the authorizer for that address. A revoked or expired key cannot be changed (409 `api-key-not-active`, with `keyStatus`): it keeps its name and sources as they were when it stopped. A rolled key in its grace period is active and can be changed; its replacement has a list of its own.',
  ].join('\n'),
  auth: 'jwt',
  roles: ['ADMIN'],
  pathParams: apiKeyIdParams,
  body: {
    schema: updateApiKeyRequestSchema,
    examples: {
      restrict: {
        summary: 'Only from a cron host',
        value: { allowedSources: ['203.0.113.7'] },
      },
      rename: { summary: 'Rename', value: { name: 'Nightly cron (EU)' } },
      anySource: { summary: 'From any address again', value: { allowedSources: null } },
      scope: { summary: 'Only one KPI', value: { kpiIds: [KPI_ID] } },
      everyKpi: { summary: 'Every KPI again', value: { kpiIds: null } },
    },
  },
  responses: {
    200: {
      description: 'Changed: the key as it is now.',
      schema: apiKeyViewSchema,
      example: { ...apiKeyExample, allowedSources: ['203.0.113.7/32'] },
    },
  },
  errors: ['NOT_FOUND', 'API_KEY_NOT_ACTIVE'],
  core: async ({ params: { id }, body, user, origin }) => {
    const changed = await updateApiKey(db, {
      tenantId: user.tenantId,
      keyId: id,
      changes: body,
      by: { type: 'user', userId: user.userId, email: user.email },
      origin,
    });
    return reply(200, apiKeyView(changed));
  },
});

/**
 * The key by id (Query on the index), the KPIs of a new scope (BatchGet), its change with its audit event in one transaction (Update,
 * conditioned on it being active, and Put; GetItem after a refused condition says why); for the
 * answer its days of usage (Query on the table) and the users of its audit trail with the tenant
 * (BatchGet, as the session check).
 */
export const deployment = defineDeployment({
  table: {
    BatchGetItem: ['KPI#'],
    GetItem: ['APIKEY#'],
    PutItem: ['AUDIT#'],
    Query: ['APIKEY#'],
    UpdateItem: ['APIKEY#'],
  },
  indexes: ['gsi1'],
});

export const handler = jwtEndpoint(route);
