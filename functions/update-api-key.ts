import * as z from 'zod/mini';
import { ALLOWED_SOURCES_INPUT, allowedSourcesSchema, keyNameSchema } from '../lib/api-keys/inputs';
import { updateApiKey } from '../lib/api-keys/service';
import { apiKeyView, apiKeyViewSchema } from '../lib/api-keys/views';
import { defineDeployment } from '../lib/deployment';
import { defineRoute, reply } from '../lib/http/route';
import { apiKeyIdParams } from '../lib/http/schemas';
import { apiKeyExample } from '../lib/openapi/examples';
import { db, jwtEndpoint } from '../lib/runtime';

/**
 * What a change of a key may set: its name, its source allowlist, or both. A field left out stays as
 * it is; `allowedSources: null` lets the key work from any address again. A body that sets nothing is
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
  })
  .check(
    z.refine((body) => body.name !== undefined || body.allowedSources !== undefined, {
      message: 'send name, allowedSources or both',
    }),
    z.meta({
      id: 'UpdateApiKeyRequest',
      description: 'The fields to change; those left out stay as they are.',
    }),
  );

/**
 * PATCH /api-keys/{id} (ADMIN): renames an active key or sets where it may be used from. A revoked or
 * expired key is 409: it keeps what it was when it stopped.
 */
export const route = defineRoute({
  operationId: 'updateApiKey',
  method: 'patch',
  path: '/api-keys/{id}',
  tag: 'API keys',
  summary: 'Change an API key',
  description: [
    'ADMIN. Renames an active key, or sets the source addresses it works from (`allowedSources`), or both; the fields left out stay as they are, and the key itself (its raw value, scope and expiry) does not change. `allowedSources: null` lets the key work from any address again.',
    '',
    'A narrowed list applies to the very next request: the push handlers check the source again from a fresh read of the key, even while API Gateway still holds an earlier answer of the authorizer for that address. A revoked or expired key cannot be changed (409 `api-key-not-active`, with `keyStatus`): it keeps its name and sources as they were when it stopped. A rolled key in its grace period is active and can be changed; its replacement has a list of its own.',
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
 * The key by id (Query on the index), its change with its audit event in one transaction (Update,
 * conditioned on it being active, and Put; GetItem after a refused condition says why); for the
 * answer its days of usage (Query on the table) and the users of its audit trail with the tenant
 * (BatchGet, as the session check).
 */
export const deployment = defineDeployment({
  table: {
    GetItem: ['APIKEY#'],
    PutItem: ['AUDIT#'],
    Query: ['APIKEY#'],
    UpdateItem: ['APIKEY#'],
  },
  indexes: ['gsi1'],
});

export const handler = jwtEndpoint(route);
