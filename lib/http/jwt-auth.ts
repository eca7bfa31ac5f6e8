import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { SessionGuard } from '../auth/session-guard';
import type { TokenService } from '../auth/tokens';
import type { Role } from '../domain/user';
import { AppError } from '../errors';
import { logger } from '../logger';
import { header } from './responses';
import type { UserContext } from './types';

export interface JwtAuthOptions {
  tokens: TokenService;
  /** Whether the token's session, user and tenant still allow it (lib/auth/session-guard.ts). */
  sessions: SessionGuard;
  /** Roles allowed to call the route; default: every role of the tenant. */
  roles?: readonly Role[];
}

const BEARER = /^Bearer[ ]+([A-Za-z0-9\-_.]+)[ ]*$/i;

/**
 * Spec 5.1: `Authorization: Bearer <token>`, optional `X-Tenant-ID`. Sets `context.user`. A token must
 * be valid and of a session that still allows it: 401 once the session ended or was revoked.
 * 401 carries `WWW-Authenticate` (RFC 6750 §3); a valid token of the wrong role is 403 (spec 5.1.4);
 * an `X-Tenant-ID` other than the token's tenant is 403: the header can narrow, never widen, access.
 */
export const jwtAuth = ({
  tokens,
  sessions,
  roles,
}: JwtAuthOptions): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, UserContext> => ({
  before: async (request) => {
    // Stryker disable next-line StringLiteral: any text without "Bearer <token>" fails the match like ''
    const match = BEARER.exec(header(request.event, 'authorization') ?? '');
    if (!match?.[1]) {
      throw new AppError('UNAUTHENTICATED', 'Send the access token as "Authorization: Bearer <token>".', {
        headers: { 'WWW-Authenticate': 'Bearer realm="strategy-service"' },
      });
    }
    const user = await tokens.verifyAccessToken(match[1]);
    await sessions.check(user);
    const tenantHeader = header(request.event, 'x-tenant-id');
    if (tenantHeader !== undefined && tenantHeader !== user.tenantId) {
      throw new AppError('TENANT_MISMATCH', "X-Tenant-ID does not match the token's tenant.");
    }
    if (roles && !roles.includes(user.role)) {
      throw new AppError('FORBIDDEN', `This operation requires the role ${roles.join(' or ')}.`, {
        headers: { 'WWW-Authenticate': 'Bearer realm="strategy-service", error="insufficient_scope"' },
      });
    }
    request.context.user = user;
    // The access line and every other line of the request name the caller.
    logger.appendKeys({ tenantId: user.tenantId, userId: user.userId });
  },
});
