import type { APIGatewayProxyEvent } from 'aws-lambda';
import { parseCookie, stringifySetCookie } from 'cookie';
import { header } from './responses';

/**
 * The device token (lib/auth/login-throttle.ts) as the pages keep it: a cookie the browser sends back
 * to the login only. `__Secure-`: a browser keeps it only when it came over HTTPS (or from localhost)
 * with `Secure`, so a network attacker cannot plant one over plain HTTP.
 */
export const DEVICE_COOKIE = '__Secure-device-token';

/** The device token of the request's cookie, or undefined; a malformed Cookie header counts as none. */
export const deviceTokenOf = (event: APIGatewayProxyEvent): string | undefined => {
  const cookies = header(event, 'Cookie');
  return cookies === undefined ? undefined : parseCookie(cookies)[DEVICE_COOKIE];
};

/**
 * The `Set-Cookie` value that gives the browser its device token: `HttpOnly` (no script reads it),
 * `Secure`, `SameSite=Strict` (no other site's page sends it along), and `Path` the login's own path
 * as the client called it (`requestContext.path`, with the stage or base path in front), so the
 * browser sends it to the login and to nothing else. It lives as long as the token.
 */
export const deviceCookie = (token: string, event: APIGatewayProxyEvent, maxAgeSeconds: number): string =>
  stringifySetCookie({
    name: DEVICE_COOKIE,
    value: token,
    path: event.requestContext?.path || event.path,
    maxAge: maxAgeSeconds,
    httpOnly: true,
    secure: true,
    sameSite: 'strict',
  });
