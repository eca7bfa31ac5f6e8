import type { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import type { GithubKeys } from '../auth/github-keys';
import type { SessionGuard } from '../auth/session-guard';
import type { TokenService, UserPrincipal } from '../auth/tokens';
import type { AuditContext, RequestOrigin } from '../domain/audit-event';
import { apiKeyHeader, authorizerVerdict } from './authorizer';
import { type CursorSeal, cursorBinding } from './cursors';
import { githubSignature } from './github-signature';
import { jwtAuth } from './jwt-auth';
import { httpErrorHandler, MAX_BODY_BYTES, readJsonBody } from './middleware';
import { cors, observe, requestIdOf } from './observability';
import { json, noContent, text } from './responses';
import { type ApiRoute, type KeyRoute, NEXT_CURSOR_HEADER, type RouteSpec, type TextReply } from './route';
import { parseInput } from './validation';

/**
 * The handlers of the route modules (functions/), built from their declarations (./route.ts). The
 * middleware order is written here once, for every endpoint:
 *
 * 1. `observe()` first, so that its `after`/`onError` run last: the request id on every log line, then
 *    `X-Request-Id` and one access line on the answer, whatever answered;
 * 2. Powertools Tracer, where the deps give one: the handler's subsegment (X-Ray), which holds the
 *    DynamoDB calls' subsegments; the response is not captured (a creation answer holds a raw API key).
 *    The push routes get none: Lambda's active tracing records their invocation without the X-Ray SDK,
 *    which would be a fifth of their cold start (docs/performance.md, "Cold starts");
 * 3. CORS for the routes browsers call, whose headers must also reach the problem answers;
 * 4. `httpErrorHandler()`: every error after it becomes a problem document (middy runs `onError` in
 *    reverse order, so the two above still see its answer);
 * 5. authentication (a JWT route's token and role), then the input: body, path parameters and query,
 *    each checked by its schema before `core` runs, so `core` receives typed, checked input.
 *
 * A route behind an API key has no 5.: the push pipeline authenticates the key and reads the input in
 * one round trip (lib/push/push-service.ts), and answers an input error only after the key's.
 */
export interface EndpointDeps {
  corsOrigins: readonly string[];
  /** Absent: no handler subsegment, only the invocation segment of Lambda's active tracing. */
  tracer?: Tracer | undefined;
}

/** A Lambda handler of API Gateway's REST proxy events. */
export type HttpHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

type Answer = { status: number; body: unknown; headers?: Record<string, string> } | TextReply;

/** What `core` answered, as API Gateway's proxy result: JSON, text of another media type, or no content (204). */
const toResult = (reply: Answer): APIGatewayProxyResult =>
  'text' in reply
    ? text(reply.status, reply.contentType, reply.text, reply.headers)
    : reply.body === undefined
      ? noContent(reply.headers)
      : json(reply.status, reply.body, reply.headers);

const stages = (deps: EndpointDeps, withCors: boolean) => {
  const handler = (
    core: (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>,
  ) => {
    // An answer may hold a secret shown once (a new key, a webhook's signing secret): never trace
    // metadata. Tracing runs only on Lambda with X-Ray, where no test reaches it.
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: see above
    const observed = middy(core).use(observe());
    const chain = deps.tracer
      ? observed.use(captureLambdaHandler(deps.tracer, { captureResponse: false }))
      : observed;
    return (withCors ? chain.use(cors(deps.corsOrigins)) : chain).use(httpErrorHandler());
  };
  return handler;
};

interface Checked {
  params: unknown;
  query: unknown;
  body: unknown;
}

/**
 * The query parameters as the route's schema reads them: each a single value (the last one given, as
 * API Gateway's `queryStringParameters` holds it), those the route declares repeatable the list of all
 * their values (`multiValueQueryStringParameters`).
 */
const queryOf = (spec: RouteSpec, event: APIGatewayProxyEvent): Record<string, unknown> => {
  const single: Record<string, unknown> = { ...(event.queryStringParameters ?? {}) };
  for (const name of spec.repeatedQuery ?? []) {
    const values = event.multiValueQueryStringParameters?.[name];
    // Stryker disable next-line ConditionalExpression: a parameter absent from both lists is undefined either way
    if (values) single[name] = values;
  }
  return single;
};

/** Body, path parameters and query of a request, each parsed by the route's schema (400 naming what is wrong). */
const readInput = async (spec: RouteSpec, event: APIGatewayProxyEvent): Promise<Checked> => {
  const absent = (event.body ?? '') === '' || (typeof event.body === 'string' && event.body.trim() === '');
  const body =
    spec.body === undefined
      ? undefined
      : spec.body.optional && absent
        ? parseInput(spec.body.schema as z.core.$ZodType, {})
        : parseInput(spec.body.schema as z.core.$ZodType, await readJsonBody(event, spec.body.maxBytes));
  const params = spec.pathParams
    ? parseInput(spec.pathParams, event.pathParameters ?? {}, { what: 'path' })
    : undefined;
  const query = spec.query
    ? parseInput(spec.query, queryOf(spec, event), { what: 'query string' })
    : undefined;
  return { params, query, body };
};

/**
 * Where a request came from, as API Gateway saw it (the TCP peer and the User-Agent it copied), and its
 * id: what the audit events of the changes it makes record.
 */
export const originOf = (event: APIGatewayProxyEvent, context: Context): RequestOrigin => {
  const identity = event.requestContext?.identity;
  return {
    source: identity?.sourceIp ? { ip: identity.sourceIp, userAgent: identity.userAgent || null } : null,
    requestId: requestIdOf({ event, context }) ?? null,
  };
};

/** The signed-in caller as the actor of a request's changes. */
const auditContextOf = (user: UserPrincipal, origin: RequestOrigin): AuditContext => ({
  actor: { type: 'user', id: user.userId, email: user.email },
  ...origin,
});

/** Where the input middleware leaves the checked input for `core`. */
const INPUT = Symbol('input');
type WithInput = Context & { [INPUT]?: Checked; user?: UserPrincipal };

const input = (spec: RouteSpec): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> => ({
  before: async (request) => {
    (request.context as WithInput)[INPUT] = await readInput(spec, request.event);
  },
});

/** Runs a route without a caller identity on its checked input. */
const withoutIdentity =
  // biome-ignore lint/suspicious/noExplicitAny: any route's own schema types
  (declared: ApiRoute<any, any, any, any, 'none'>) => async (event: APIGatewayProxyEvent, context: Context) =>
    toResult(
      await declared.core({
        ...((context as WithInput)[INPUT] as Checked),
        event,
        context,
        origin: originOf(event, context),
      } as never),
    );

/** The handler of a route without authentication (login, refresh, health). */
export const publicEndpointOf =
  (deps: EndpointDeps) =>
  // biome-ignore lint/suspicious/noExplicitAny: any route's own schema types
  (declared: ApiRoute<any, any, any, any, 'none'>): HttpHandler =>
    stages(deps, declared.cors === true)(withoutIdentity(declared)).use(input(declared));

/**
 * The handler of a route that GitHub calls and signs (secret scanning): no caller identity of the
 * service's own, but the signature over the raw body is checked (./github-signature.ts) before the
 * body is parsed, so an unsigned request is refused before its content is read at all.
 */
export const githubSignedEndpointOf =
  (deps: EndpointDeps, keys: GithubKeys) =>
  // biome-ignore lint/suspicious/noExplicitAny: any route's own schema types
  (declared: ApiRoute<any, any, any, any, 'none'>): HttpHandler => {
    // Stryker disable next-line OptionalChaining: a route GitHub calls always declares its body
    const maxBytes = declared.body?.maxBytes ?? MAX_BODY_BYTES;
    return stages(
      deps,
      false,
    )(withoutIdentity(declared))
      .use(githubSignature(keys, maxBytes))
      .use(input(declared));
  };

/**
 * The lists' cursors, as clients see them: sealed (./cursors.ts). `?cursor=` is opened before `core`
 * runs and a `nextCursor` of the answer sealed after, so the storage's cursors never leave the service.
 */
const withSealedCursors = async (
  cursors: CursorSeal,
  binding: string,
  checked: Checked,
  run: (checked: Checked) => Promise<Answer>,
): Promise<Answer> => {
  const query = checked.query as { cursor?: unknown } | undefined;
  const opened =
    typeof query?.cursor === 'string'
      ? { ...checked, query: { ...query, cursor: await cursors.open(query.cursor, binding) } }
      : checked;
  const answer = await run(opened);
  const inHeader = answer.headers?.[NEXT_CURSOR_HEADER];
  if (inHeader !== undefined) {
    return {
      ...answer,
      headers: { ...answer.headers, [NEXT_CURSOR_HEADER]: await cursors.seal(inHeader, binding) },
    };
  }
  if ('text' in answer) return answer;
  const body = answer.body as { nextCursor?: unknown } | undefined;
  if (typeof body?.nextCursor !== 'string') return answer;
  return { ...answer, body: { ...body, nextCursor: await cursors.seal(body.nextCursor, binding) } };
};

/** The handler of a route behind a JWT: every role of the tenant, or only `roles`. */
export const jwtEndpointOf =
  (deps: EndpointDeps, tokens: TokenService, sessions: SessionGuard, cursors: CursorSeal) =>
  // biome-ignore lint/suspicious/noExplicitAny: any route's own schema types
  (declared: ApiRoute<any, any, any, any, 'jwt'>): HttpHandler =>
    stages(
      deps,
      true,
    )(async (event, context) => {
      const { user, [INPUT]: checked } = context as WithInput & { user: UserPrincipal };
      const binding = cursorBinding(declared.operationId, user.tenantId, (checked as Checked).params);
      const origin = originOf(event, context);
      const audit = auditContextOf(user, origin);
      return toResult(
        await withSealedCursors(cursors, binding, checked as Checked, (input) =>
          declared.core({ ...input, user, audit, origin, event, context } as never),
        ),
      );
    })
      .use(
        jwtAuth({
          tokens,
          sessions,
          ...(declared.roles ? { roles: declared.roles } : {}),
        }) as MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult>,
      )
      .use(input(declared));

/**
 * The handler of a route behind an API key. `read()` checks the body and query when the pipeline asks
 * for them, once; `core` sees the key, the authorizer's verdict and the time left.
 */
export const keyEndpointOf =
  (deps: EndpointDeps) =>
  // biome-ignore lint/suspicious/noExplicitAny: any route's own schema types
  (declared: KeyRoute<any, any, any>): HttpHandler =>
    stages(
      deps,
      false,
    )(async (event, context) => {
      let checked: Promise<Checked> | undefined;
      const read = () => {
        checked ??= readInput(declared, event);
        return checked;
      };
      return toResult(
        await declared.core({
          event,
          context,
          origin: originOf(event, context),
          apiKey: apiKeyHeader(event),
          authorizer: authorizerVerdict(event),
          source: {
            sourceIp: event.requestContext?.identity?.sourceIp ?? undefined,
            userAgent: event.requestContext?.identity?.userAgent ?? undefined,
          },
          read,
        } as never),
      );
    });

/** A handler outside the API's operations (a page, the API reference's assets): observed and traced. */
export const pageEndpointOf =
  (deps: EndpointDeps) =>
  (core: (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>): HttpHandler =>
    stages(deps, false)(core);
