import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { UserPrincipal } from '../auth/tokens';

/** API Gateway REST (v1) proxy event whose body the JSON middleware has already parsed. */
export type JsonEvent = Omit<APIGatewayProxyEvent, 'body'> & { body: unknown };

export type HttpResult = APIGatewayProxyResult;

/** Lambda context after `jwtAuth` ran: the verified caller. */
export type UserContext = Context & { user: UserPrincipal };
