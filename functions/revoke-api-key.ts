import { revokeApiKey } from '../lib/api-keys/service';
import { defineRoute, reply } from '../lib/http/route';
import { apiKeyIdParams } from '../lib/http/schemas';
import { audit } from '../lib/logger';
import { db, jwtEndpoint, publish } from '../lib/runtime';

/** DELETE /api-keys/{id} (ADMIN): revokes at once, recording who; idempotent; another tenant's key is 404. */
export const route = defineRoute({
  operationId: 'revokeApiKey',
  method: 'delete',
  path: '/api-keys/{id}',
  tag: 'API keys',
  summary: 'Revoke an API key',
  description:
    'Spec 3 (ADMIN). Effective for the very next request; a revoked key is never reactivated. Revoking again is 204 too. Revoking a key made by a roll also ends the grace period of the key it replaced, if that one still works: the old key stops at once too.',
  auth: 'jwt',
  roles: ['ADMIN'],
  pathParams: apiKeyIdParams,
  responses: { 204: { description: 'Revoked.' } },
  errors: ['NOT_FOUND'],
  core: async ({ params: { id }, user }) => {
    const { graceEnded } = await revokeApiKey(
      db,
      user.tenantId,
      id,
      { type: 'user', userId: user.userId },
      publish,
    );
    // Revoking is idempotent, and so is its audit line: one per successful request.
    audit('api_key.revoked', { keyId: id, graceEndedOf: graceEnded?.id ?? null });
    return reply(204, undefined);
  },
});

export const handler = jwtEndpoint(route);
