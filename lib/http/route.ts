import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import type { UserPrincipal } from '../auth/tokens';
import type { AuditContext, RequestOrigin } from '../domain/audit-event';
import type { Role } from '../domain/user';
import type { ErrorCode } from '../errors';
import type { AuthorizerVerdict } from '../push/push-service';

/**
 * One endpoint, declared once (functions/<name>.ts): what the OpenAPI document publishes, what the
 * handler validates before `core` runs, and what serverless.yml must route to it. The route modules
 * export it as `route` and their Lambda handler as `handler`, built from it by the runtime's wrappers
 * (lib/runtime.ts, lib/http/endpoint.ts). The document (lib/openapi/document.ts) and the template test
 * find every route by reading the `route` export of each module in functions/.
 */

export type Auth = 'none' | 'jwt' | 'apiKey';
export type Tag =
  | 'Authentication'
  | 'Push'
  | 'Pull'
  | 'API keys'
  | 'People'
  | 'KPIs'
  | 'Strategy'
  | 'Webhooks'
  | 'Audit'
  | 'Service';

export interface Example {
  summary: string;
  value: unknown;
}

type Schema = z.core.$ZodType;
type SchemaList = readonly [Schema, Schema, ...Schema[]];

export interface ResponseSpec {
  description: string;
  /**
   * Absent for a response without a body (204). Several: the body is one of them (`anyOf`), as a push's
   * 200 is the stored result or, with `?dryRun=true`, the dry run's plan; give `examples` of each then.
   */
  schema?: Schema | SchemaList;
  example?: unknown;
  examples?: Record<string, Example>;
  /**
   * The same answer in other media types than JSON, which a client asks for (an export as NDJSON):
   * each with an example of its body as sent (a string).
   */
  alternatives?: Record<string, { description: string; example: string }>;
  /** Headers of this answer beyond X-Request-Id, each with its description. */
  headers?: Record<string, string>;
}

export type Responses = Partial<Record<200 | 201 | 204, ResponseSpec>>;

type BodyOf<S> = S extends SchemaList ? z.output<S[number]> : S extends Schema ? z.output<S> : undefined;

/** What `core` answers: one of the declared statuses, with a body of that status's schema. */
export type Reply<R extends Responses> = {
  [Status in keyof R & number]: {
    status: Status;
    body: R[Status] extends { schema: infer S } ? BodyOf<S> : undefined;
    headers?: Record<string, string>;
  };
}[keyof R & number];

/**
 * An answer in another media type than JSON (a route's `alternatives`): its body as sent. A cursor in
 * NEXT_CURSOR_HEADER is sealed as a JSON answer's `nextCursor` is.
 */
export interface TextReply {
  status: 200;
  contentType: string;
  text: string;
  headers?: Record<string, string>;
}

/** The header that carries the cursor of an answer that has no JSON body to hold it (an export). */
export const NEXT_CURSOR_HEADER = 'X-Next-Cursor';

/** The body a declared route answers with `status` (what the pages read). */
export type ResponseBody<
  R extends { responses: Responses },
  Status extends keyof R['responses'],
> = R['responses'][Status] extends { schema: infer S } ? BodyOf<S> : undefined;

type ObjectSchema = z.core.$ZodObject;
type Output<S> = S extends Schema ? z.output<S> : undefined;

/** The declaration of an operation of the API; the generic parameters keep `core`'s input typed. */
export interface RouteSpec<
  P extends ObjectSchema | undefined = ObjectSchema | undefined,
  Q extends Schema | undefined = ObjectSchema | undefined,
  B extends Schema | undefined = Schema | undefined,
  R extends Responses = Responses,
> {
  operationId: string;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Relative to the base URL `…/api`, as in the spec; `{name}` for path parameters. */
  path: `/${string}`;
  tag: Tag;
  summary: string;
  description: string;
  auth: Auth;
  /** Roles allowed (JWT operations); absent: every role of the tenant. */
  roles?: readonly Role[];
  /** Each property is one path parameter; checked before `core` runs (400 naming it). */
  pathParams?: P;
  /** Each property of its input object is one query parameter (a pipe may add defaults after). */
  query?: Q;
  /**
   * Query parameters that may be given more than once (`?type=a&type=b`): each reaches the schema as
   * the list of its values, in order. Every other parameter is a single value, as API Gateway's
   * `queryStringParameters` has it.
   */
  repeatedQuery?: readonly string[];
  /**
   * `optional`: the operation also runs without a body (then with its defaults). `maxBytes`: a larger
   * limit than the API's 64 KiB, for a body the service does not choose the size of (a partner's report).
   */
  body?: { schema: B; examples: Record<string, Example>; optional?: boolean; maxBytes?: number };
  responses: R;
  /**
   * What the operation itself may answer; the document adds those that follow from `auth`, from having
   * a body or a query, and 500/503 for every operation that is not static (lib/openapi/document.ts).
   */
  errors: readonly ErrorCode[];
  /**
   * Successful responses carry the RateLimit-* headers; so do the service's own 429s when `errors`
   * lists RATE_LIMIT_EXCEEDED (the request was counted).
   */
  rateLimited?: boolean;
  /** Served without code that can fail (no 500/503 problems). */
  static?: boolean;
  /** Browsers call it from the pages (the JWT routes and the ones that issue tokens): CORS applies. */
  cors?: boolean;
}

/** The checked input of a request: path parameters, query and body, each parsed by its schema. */
export interface RouteInput<P, Q, B> {
  params: Output<P>;
  query: Output<Q>;
  body: Output<B>;
}

export interface RequestOf {
  event: APIGatewayProxyEvent;
  context: Context;
  /** Where the request came from and its id, as its audit events record them. */
  origin: RequestOrigin;
}

/** A route without a caller identity (login, health), or behind a JWT (`user` is the caller). */
export interface ApiRoute<
  P extends ObjectSchema | undefined,
  Q extends Schema | undefined,
  B extends Schema | undefined,
  R extends Responses,
  A extends 'none' | 'jwt',
> extends RouteSpec<P, Q, B, R> {
  auth: A;
  core: (
    input: RouteInput<P, Q, B> &
      RequestOf &
      (A extends 'jwt'
        ? {
            user: UserPrincipal;
            /** The caller as the actor of the changes it makes, and where it called from. */
            audit: AuditContext;
          }
        : unknown),
  ) => Promise<Reply<R> | TextReply>;
}

/**
 * A route behind an API key (the push routes). The key is checked before the body and query are
 * judged (spec 5.2 order) and in the same round trip as the KPIs the body names, so the input is read
 * by `core` through `read()`: its errors are answered after the key's.
 */
export interface KeyRoute<Q extends Schema | undefined, B extends Schema | undefined, R extends Responses>
  extends RouteSpec<undefined, Q, B, R> {
  auth: 'apiKey';
  core: (
    input: RequestOf & {
      apiKey: string | undefined;
      authorizer: AuthorizerVerdict | undefined;
      /** Where the request came from, as API Gateway saw it. */
      source: { sourceIp: string | undefined; userAgent: string | undefined };
      read: () => Promise<{ query: Output<Q>; body: Output<B> }>;
    },
  ) => Promise<Reply<R>>;
}

/** Declares a route; only an identity function, so that TypeScript infers `core`'s input from the schemas. */
export const defineRoute = <
  const A extends 'none' | 'jwt',
  P extends ObjectSchema | undefined = undefined,
  Q extends Schema | undefined = undefined,
  B extends Schema | undefined = undefined,
  const R extends Responses = Responses,
>(
  spec: ApiRoute<P, Q, B, R, A>,
) => spec;

export const defineKeyRoute = <
  Q extends Schema | undefined = undefined,
  B extends Schema | undefined = undefined,
  const R extends Responses = Responses,
>(
  spec: KeyRoute<Q, B, R>,
) => spec;

/**
 * A page or asset the service serves besides the API (the management pages, the API reference): only
 * its method and paths, for serverless.yml; it is not an operation of the OpenAPI document.
 */
export interface PageRoute {
  method: 'get';
  /** Full paths, e.g. `/platform/api-keys`. */
  paths: readonly `/${string}`[];
}

export const definePage = (paths: PageRoute['paths']): PageRoute => ({ method: 'get', paths });

export type AnyRoute = RouteSpec | PageRoute;

export const isPageRoute = (declared: AnyRoute): declared is PageRoute => 'paths' in declared;

/** `core`'s answer: a status of the route's `responses` and its body (`undefined` for 204). */
export const reply = <const Status extends 200 | 201 | 204, Body>(
  status: Status,
  body: Body,
  headers?: Record<string, string>,
): { status: Status; body: Body; headers?: Record<string, string> } =>
  headers ? { status, body, headers } : { status, body };
