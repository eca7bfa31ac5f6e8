import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

/**
 * API responses hold tenant data or credentials: no shared cache may store them (RFC 9111 §5.2.2.5,
 * and RFC 6749 §5.1 for token responses).
 */
const baseHeaders = { 'Cache-Control': 'no-store' } as const;

export const json = (
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyResult => ({
  statusCode,
  headers: { 'Content-Type': 'application/json', ...baseHeaders, ...headers },
  body: JSON.stringify(body),
});

export const noContent = (headers: Record<string, string> = {}): APIGatewayProxyResult => ({
  statusCode: 204,
  headers: { ...baseHeaders, ...headers },
  body: '',
});

/** Header lookup that ignores case: API Gateway REST passes headers as the client spelled them. */
export const header = (event: Pick<APIGatewayProxyEvent, 'headers'>, name: string): string | undefined => {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    if (key.toLowerCase() === wanted && value !== undefined) return value;
  }
  return undefined;
};
