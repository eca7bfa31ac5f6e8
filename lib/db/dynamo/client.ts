import * as http from 'node:http';
import * as https from 'node:https';
import { crc32 } from 'node:zlib';
import { type DynamoDbCommand, errorShape } from './commands';
import { type Credentials, type CredentialsProvider, cachedProvider, fromEnv } from './credentials';
import { Crc32MismatchError, DynamoDbError, RequestTimeoutError, type ResponseMetadata } from './errors';
import { fromJson, toJson, unmarshallOutput } from './marshalling';
import { signRequest } from './sigv4';

/** One HTTP attempt as middleware sees it: the operation, the JSON body, and which attempt (1, 2, ...). */
export interface HttpRequest {
  operation: string;
  body: string;
  attempt: number;
  /** The command being sent: the same object on every attempt of one `send`, with its native `input`. */
  command: DynamoDbCommand<unknown, unknown>;
}

/** Header names in lower case. A middleware may answer with a response of its own instead of calling `next`. */
export interface HttpResponse {
  statusCode: number;
  headers: Record<string, string | undefined>;
  body: string;
}

export type Handler = (request: HttpRequest) => Promise<HttpResponse>;

/**
 * Wraps each HTTP attempt (inside the retry loop): to count requests, or to inject failures through
 * the real client (answer 400 ThrottlingException, throw an ECONNRESET, ...). Listed outermost first.
 */
export type Middleware = (next: Handler) => Handler;

export interface DynamoDbClientOptions {
  region: string;
  /** Default `https://dynamodb.<region>.amazonaws.com`; `http://127.0.0.1:8000` for DynamoDB Local. */
  endpoint?: string | undefined;
  /** Fixed credentials or a provider (e.g. the SDK's `fromNodeProviderChain()`); default: the environment. */
  credentials?: Credentials | CredentialsProvider | undefined;
  /** Attempts per command, the first included (SDK standard mode: 3). */
  maxAttempts?: number | undefined;
  /** Per attempt, until the whole answer is in; a timeout is a `TimeoutError` and is retried. */
  requestTimeoutMs?: number | undefined;
  middleware?: Middleware | Middleware[] | undefined;
}

export interface DynamoDbClient {
  send<Input, Result>(command: DynamoDbCommand<Input, Result>): Promise<Result>;
  readonly config: { region: string; endpoint: string; maxAttempts: number; requestTimeoutMs: number };
  /**
   * Adds a middleware around the ones given at creation (outermost), e.g. to inject faults into the
   * client a module already built; returns the function that removes it.
   */
  use(middleware: Middleware): () => void;
  /** Closes the kept-alive connections (a CLI or test that wants to exit promptly). */
  destroy(): void;
}

const TARGET_PREFIX = 'DynamoDB_20120810.';
const CONTENT_TYPE = 'application/x-amz-json-1.0';

/**
 * Retry policy of the SDK's standard mode (@smithy/core 3.41, util-retry `retries-2026-config`):
 * full-jitter exponential backoff, base 50 ms, 1 s for throttling, capped at 20 s.
 */
const BASE_DELAY_MS = 50;
const THROTTLING_BASE_DELAY_MS = 1000;
const MAX_DELAY_MS = 20_000;

const THROTTLING = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
]);
const TRANSIENT = new Set([
  'InternalServerError',
  'ServiceUnavailable',
  'RequestTimeout',
  'RequestTimeoutException',
  'TimeoutError',
  'Crc32MismatchError',
]);
/** Node's codes for a connection that failed or broke (the SDK's NODEJS_TIMEOUT/NETWORK_ERROR_CODES). */
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** `throttling` and `transient` failures are retried; anything else (every other 4xx) is final. */
export const retryKind = (error: unknown): 'throttling' | 'transient' | undefined => {
  if (typeof error !== 'object' || error === null) return undefined;
  const { name, code, $metadata } = error as { name?: string; code?: string; $metadata?: ResponseMetadata };
  if (name && THROTTLING.has(name)) return 'throttling';
  if (name && TRANSIENT.has(name)) return 'transient';
  if (code && NETWORK_CODES.has(code)) return 'transient';
  if (($metadata?.httpStatusCode ?? 0) >= 500) return 'transient';
  return undefined;
};

/** Full jitter: uniformly random in [0, min(cap, base × 2^retries)). */
export const backoffDelay = (kind: 'throttling' | 'transient', retries: number): number =>
  Math.floor(
    Math.random() *
      Math.min(
        MAX_DELAY_MS,
        (kind === 'throttling' ? THROTTLING_BASE_DELAY_MS : BASE_DELAY_MS) * 2 ** retries,
      ),
  );

/**
 * DynamoDB's JSON error body: `__type` is `<namespace>#<ExceptionName>` (the `x-amzn-errortype`
 * header carries it too), the text is in `message` or `Message`. A body that is not JSON (a proxy's
 * 502 page) gets a name by status, so 5xx stays recognisably transient.
 */
const parseError = (response: HttpResponse, $metadata: ResponseMetadata): DynamoDbError => {
  let body: Record<string, unknown> = {};
  try {
    body = fromJson(response.body);
  } catch {
    // not JSON: named by status below
  }
  const type = typeof body.__type === 'string' ? body.__type : response.headers['x-amzn-errortype'];
  const name =
    // Stryker disable next-line OptionalChaining: split gives at least one part, so pop() gives a string
    type?.split('#').pop()?.split(':')[0] ||
    (response.statusCode === 503
      ? 'ServiceUnavailable'
      : response.statusCode >= 500
        ? 'InternalServerError'
        : 'UnknownError');
  const message = body.message ?? body.Message ?? `DynamoDB answered HTTP ${response.statusCode}`;
  const extra = unmarshallOutput(
    { CancellationReasons: body.CancellationReasons, Item: body.Item },
    errorShape,
  ) as ConstructorParameters<typeof DynamoDbError>[3];
  return new DynamoDbError(name, String(message), $metadata, extra);
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const flatHeaders = (headers: http.IncomingHttpHeaders): Record<string, string | undefined> => {
  const flat: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) {
    // Stryker disable next-line StringLiteral: Node gives only set-cookie as a list, and nothing reads it
    flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
};

/** The innermost handler: signs and sends one attempt, enforces the timeout and the body's CRC32. */
const httpTransport = (
  url: URL,
  region: string,
  credentials: CredentialsProvider,
  timeoutMs: number,
  agent: http.Agent,
): Handler => {
  // Stryker disable next-line all: the agent (http or https, chosen with the URL) makes the connection
  const send = url.protocol === 'http:' ? http.request : https.request;
  return async ({ operation, body }) => {
    const payload = Buffer.from(body);
    const headers = signRequest(
      {
        method: 'POST',
        path: url.pathname,
        headers: {
          host: url.host,
          'content-type': CONTENT_TYPE,
          'content-length': String(payload.length),
          'x-amz-target': `${TARGET_PREFIX}${operation}`,
        },
        body: payload,
      },
      { credentials: await credentials(), region, service: 'dynamodb' },
    );
    return new Promise<HttpResponse>((resolve, reject) => {
      const request = send(url, { method: 'POST', headers, agent }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', fail);
        response.on('end', () => {
          clearTimeout(timer);
          const raw = Buffer.concat(chunks);
          const expected = response.headers['x-amz-crc32'];
          if (expected !== undefined && Number(expected) !== crc32(raw)) {
            reject(
              new Crc32MismatchError(
                `Response body CRC32 ${crc32(raw)} does not match x-amz-crc32 ${expected}`,
              ),
            );
            return;
          }
          resolve({
            statusCode: response.statusCode ?? 0,
            headers: flatHeaders(response.headers),
            body: raw.toString(),
          });
        });
      });
      function fail(error: Error) {
        clearTimeout(timer);
        reject(error);
      }
      // Destroying the request with the error emits it as 'error': fail() rejects with it.
      const timer = setTimeout(() => {
        request.destroy(new RequestTimeoutError(`${operation}: no complete answer within ${timeoutMs} ms`));
      }, timeoutMs);
      request.on('error', fail);
      request.end(payload);
    });
  };
};

/**
 * A minimal DynamoDB client: JSON 1.0 protocol over node:https (node:http for DynamoDB Local), SigV4,
 * the SDK's standard retries, per-attempt timeouts and CRC32 checks. `send` takes the DocumentClient
 * command classes of ./commands and answers with native values and `$metadata`, as lib-dynamodb does.
 */
export const createDynamoDbClient = (options: DynamoDbClientOptions): DynamoDbClient => {
  const config = {
    region: options.region,
    endpoint: options.endpoint ?? `https://dynamodb.${options.region}.amazonaws.com`,
    maxAttempts: Math.max(1, options.maxAttempts ?? 3),
    requestTimeoutMs: options.requestTimeoutMs ?? 5000,
  };
  const url = new URL(config.endpoint);
  // Keep-alive saves a TCP and TLS handshake per request; 50 sockets as the SDK's Node handler allows.
  const agent = new (url.protocol === 'http:' ? http.Agent : https.Agent)({
    keepAlive: true,
    maxSockets: 50,
  });
  const credentials = cachedProvider(options.credentials ?? fromEnv());
  const transport = httpTransport(url, config.region, credentials, config.requestTimeoutMs, agent);
  const middleware = [options.middleware ?? []].flat();
  const compose = () => middleware.reduceRight<Handler>((next, wrap) => wrap(next), transport);
  let handler = compose();
  const use = (added: Middleware) => {
    middleware.unshift(added);
    handler = compose();
    return () => {
      const index = middleware.indexOf(added);
      if (index !== -1) middleware.splice(index, 1);
      handler = compose();
    };
  };

  const send = async <Input, Result>(command: DynamoDbCommand<Input, Result>): Promise<Result> => {
    const { operation } = command;
    const body = toJson(command.marshall());
    let totalRetryDelay = 0;
    for (let attempt = 1; ; attempt++) {
      try {
        const response = await handler({ operation, body, attempt, command });
        const $metadata: ResponseMetadata = {
          httpStatusCode: response.statusCode,
          requestId: response.headers['x-amzn-requestid'],
          attempts: attempt,
          totalRetryDelay,
        };
        if (response.statusCode < 200 || response.statusCode >= 300) throw parseError(response, $metadata);
        const output = command.unmarshall(response.body ? fromJson(response.body) : {});
        return { ...output, $metadata } as Result;
      } catch (error) {
        const kind = retryKind(error);
        if (!kind || attempt >= config.maxAttempts) {
          if (typeof error === 'object' && error !== null) {
            const existing = (error as { $metadata?: ResponseMetadata }).$metadata;
            (error as { $metadata?: ResponseMetadata }).$metadata = {
              ...existing,
              attempts: attempt,
              totalRetryDelay,
            };
          }
          throw error;
        }
        const delay = backoffDelay(kind, attempt - 1);
        await sleep(delay);
        totalRetryDelay += delay;
      }
    }
  };

  return { send, config, use, destroy: () => agent.destroy() };
};
