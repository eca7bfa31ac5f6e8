import type { APIGatewayProxyResult } from 'aws-lambda';
import { AppError } from '../errors';

/**
 * API responses hold tenant data or credentials: no shared cache may store them (RFC 9111 §5.2.2.5,
 * and RFC 6749 §5.1 for token responses).
 */
const baseHeaders = { 'Cache-Control': 'no-store' } as const;

/**
 * RFC 6797: browsers that saw the service once reach it only over HTTPS for a year, its subdomains
 * included, so a later request cannot be downgraded to HTTP on a hostile network. Every response of
 * every function carries it (lib/http/observability.ts), as do API Gateway's own answers
 * (infra/gateway-responses.json) and the WAF's (serverless.yml).
 */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000; includeSubDomains';

/**
 * What a JSON answer (a result or a problem) adds: a browser never sniffs it into HTML or script, and
 * should one render it as a document anyway, it may load nothing and run nothing.
 */
export const JSON_SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'",
} as const;

/**
 * A JSON response. Route modules reply through lib/http/route.ts, whose declared response schemas the
 * OpenAPI document publishes, so the compiler checks what they send against the document.
 */
export const json = <T = unknown>(
  statusCode: number,
  body: T,
  headers: Record<string, string> = {},
): APIGatewayProxyResult => ({
  statusCode,
  headers: { 'Content-Type': 'application/json', ...baseHeaders, ...JSON_SECURITY_HEADERS, ...headers },
  body: JSON.stringify(body),
});

/** An answer in another media type than JSON (an NDJSON export), its body as given. */
export const text = (
  statusCode: number,
  contentType: string,
  body: string,
  headers: Record<string, string> = {},
): APIGatewayProxyResult => ({
  statusCode,
  headers: { 'Content-Type': contentType, ...baseHeaders, ...JSON_SECURITY_HEADERS, ...headers },
  body,
});

export const noContent = (headers: Record<string, string> = {}): APIGatewayProxyResult => ({
  statusCode: 204,
  headers: { ...baseHeaders, ...headers },
  body: '',
});

/**
 * Header lookup that ignores case: API Gateway REST passes headers as the client spelled them, so one
 * header may arrive under several spellings, and a repeated header arrives as several values in
 * `multiValueHeaders`. Every header the service reads is a singleton field; two different values are
 * ambiguous (which key? which media type?), so the request is refused with a 400 naming the header
 * (RFC 9110 §5.3) rather than one value being picked silently.
 */
export interface HeaderSource {
  headers?: Record<string, string | undefined> | null;
  multiValueHeaders?: Record<string, string[] | undefined> | null;
}

export const header = (event: HeaderSource, name: string): string | undefined => {
  const wanted = name.toLowerCase();
  const values = new Set<string>();
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    if (key.toLowerCase() === wanted && typeof value === 'string') values.add(value);
  }
  for (const [key, list] of Object.entries(event.multiValueHeaders ?? {})) {
    if (key.toLowerCase() !== wanted || !Array.isArray(list)) continue;
    for (const value of list) if (typeof value === 'string') values.add(value);
  }
  if (values.size > 1) {
    throw new AppError(
      'MALFORMED_REQUEST',
      `The ${name} header is sent more than once with different values.`,
    );
  }
  return values.values().next().value;
};
