import * as z from 'zod/mini';
import { revokeApiKey } from '../lib/api-keys/service';
import { defineDeployment } from '../lib/deployment';
import { keyRefSchema } from '../lib/domain/api-key';
import { defineRoute, reply } from '../lib/http/route';
import { apiKeyIdParams } from '../lib/http/schemas';
import { KEY_ID, NEW_KEY_ID } from '../lib/openapi/examples';
import { db, jwtEndpoint, publish } from '../lib/runtime';

/**
 * What a revocation stopped. Revoking a roll's new key also stops the old key if it is still in its
 * grace period (lib/api-keys/service.ts `revokeApiKey`): the answer names it, so a client that revoked
 * one key learns that two stopped.
 */
const revokedApiKeySchema = z
  .object({
    id: z.string().check(z.describe('The revoked key.')),
    status: z.literal('revoked'),
    graceEnded: z
      .nullable(keyRefSchema)
      .check(
        z.describe(
          'The key this one replaced in a roll, when this request ended its grace period: it stopped working too. `null` when there was none to end (no roll, the old key already stopped, or an earlier revocation ended it).',
        ),
      ),
  })
  .check(z.meta({ id: 'RevokedApiKey', description: 'The keys a revocation stopped.' }));

/** DELETE /api-keys/{id} (ADMIN): revokes at once, recording who; idempotent; another tenant's key is 404. */
export const route = defineRoute({
  operationId: 'revokeApiKey',
  method: 'delete',
  path: '/api-keys/{id}',
  tag: 'API keys',
  summary: 'Revoke an API key',
  description:
    'ADMIN only. Effective for the very next request; a revoked key is never reactivated. Revoking again is 200 too and changes nothing. Revoking a key made by a roll also ends the grace period of the key it replaced, if that one still works: the old key stops at once too, and `graceEnded` names it.',
  auth: 'jwt',
  roles: ['ADMIN'],
  pathParams: apiKeyIdParams,
  responses: {
    200: {
      description: 'Revoked; `graceEnded` names the old key of a roll that stopped with it.',
      schema: revokedApiKeySchema,
      example: { id: NEW_KEY_ID, status: 'revoked', graceEnded: { id: KEY_ID, prefix: 'skm_P97W' } },
    },
  },
  errors: ['NOT_FOUND'],
  core: async ({ params: { id }, user, origin }) => {
    // Revoking is idempotent; its audit event records the request that changed the key.
    const { graceEnded } = await revokeApiKey(
      db,
      user.tenantId,
      id,
      { type: 'user', userId: user.userId, email: user.email },
      publish,
      { origin },
    );
    return reply(200, { id, status: 'revoked' as const, graceEnded: graceEnded ?? null });
  },
});

/**
 * The key by id (Query on the index), then its revocation with its audit event in one transaction
 * (the key items read again, Get, after a concurrent change); api_key.revoked to the tenant's
 * webhooks.
 */
export const deployment = defineDeployment({
  table: {
    GetItem: ['APIKEY#'],
    PutItem: ['AUDIT#'],
    UpdateItem: ['APIKEY#'],
  },
  indexes: ['gsi1'],
  publishesWebhookEvents: true,
});

export const handler = jwtEndpoint(route);
