import type { APIGatewayProxyResult, Context } from 'aws-lambda';
import type { UserPrincipal } from '../auth/tokens';

export type HttpResult = APIGatewayProxyResult;

/** Lambda context after `jwtAuth` ran: the verified caller. */
export type UserContext = Context & { user: UserPrincipal };
