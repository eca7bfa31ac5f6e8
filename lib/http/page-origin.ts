import type { APIGatewayProxyEvent } from 'aws-lambda';

/**
 * The origin the caller reached the service at (`https://host`), from the request's Host and
 * X-Forwarded-Proto, as API Gateway and serverless-offline send them: where the pages are, for links
 * the service hands out.
 */
export const requestOrigin = (event: Pick<APIGatewayProxyEvent, 'headers'>): string => {
  const header = (name: string) =>
    Object.entries(event.headers ?? {}).find(([key]) => key.toLowerCase() === name)?.[1] ?? undefined;
  const host = header('host') ?? 'localhost';
  // API Gateway always says the scheme; without it the caller is the local stack, which serves http.
  const local = /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/.test(host);
  const proto = header('x-forwarded-proto')?.split(',')[0]?.trim() || (local ? 'http' : 'https');
  return `${proto}://${host}`;
};
