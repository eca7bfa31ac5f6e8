import { randomBytes } from 'node:crypto';
import middy from '@middy/core';
import { describe, expect, it } from 'vitest';
import { createTokenService } from '../../../../lib/auth/tokens';
import { jwtAuth } from '../../../../lib/http/jwt-auth';
import { httpErrorHandler } from '../../../../lib/http/middleware';
import { json } from '../../../../lib/http/responses';
import { invoke } from '../../../support/events';

const tokens = createTokenService({
  secret: randomBytes(32).toString('base64url'),
  issuer: 'strategy-service',
  audience: 'strategy-service-api',
  refreshTtlSeconds: 3600,
});

describe('jwtAuth with several roles (spec 5.1.4)', () => {
  const handler = middy(async () => json(200, { ok: true }))
    .use(httpErrorHandler())
    // Every session is live here: the session check has tests of its own (tests/unit/lib/auth).
    .use(jwtAuth({ tokens, sessions: { check: async () => undefined }, roles: ['ADMIN', 'EDITOR'] }));
  const as = async (role: 'ADMIN' | 'EDITOR' | 'VIEWER') => {
    const token = await tokens.issueAccessToken({
      userId: 'u',
      tenantId: 't',
      role,
      email: 'u@example.test',
      sessionId: 's',
      tokenVersion: 0,
    });
    return invoke(handler, { headers: { Authorization: `Bearer ${token}` } });
  };

  it('lets each of them in, and names all of them in the 403 of another role', async () => {
    expect((await as('ADMIN')).status).toBe(200);
    expect((await as('EDITOR')).status).toBe(200);
    const refused = await as('VIEWER');
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe('This operation requires the role ADMIN or EDITOR.');
  });
});
