import { createHash } from 'node:crypto';
import type { PullAuthView, PullSecrets, RunErrorClass } from '../domain/pull-integration';
import { type Egress, EgressError, type EgressResponse } from '../egress';
import { describeConnectionFailure } from '../egress/connection-failures';
import { originOf } from '../egress/urls';

/**
 * One fetch of a pull source: the GET with its headers and authentication, through the egress guard
 * (lib/egress/: every address checked at connect time, no redirects, at most 10 s and 1 MiB), and the
 * answer parsed only when it says it is JSON. An OAuth2 client-credentials token is requested through
 * the guard too, and kept in this container's memory until shortly before it expires: never stored,
 * never logged. What goes wrong is a class and a sentence that never quote the body or a secret.
 */

/** The fetch's own time; the whole request, connect to last byte. */
export const FETCH_TIMEOUT_MS = 10_000;
/** The token request's: a token endpoint answers fast or not at all. */
export const TOKEN_TIMEOUT_MS = 5_000;
/** The most of an answer read (the guard's default): a KPI answer is small. */
export const MAX_ANSWER_BYTES = 1024 * 1024;
/** A token endpoint's answer is a few hundred bytes. */
export const MAX_TOKEN_ANSWER_BYTES = 64 * 1024;
/** A cached token is not used in its last minute, so it never expires on the way. */
const TOKEN_MARGIN_MS = 60_000;
/**
 * The longest a token is kept, whatever its `expires_in` says (a huge or infinite one would keep it
 * for the container's life): an hour, the usual lifetime of client-credentials tokens, after which the
 * token endpoint is asked again.
 */
export const MAX_TOKEN_LIFETIME_MS = 3_600_000;
/** A token goes into a header: no control characters (RFC 9110 §5.5), which would fail every fetch. */
const TOKEN_TEXT = /^\P{Cc}+$/u;

export const USER_AGENT = 'strategy-service-pull/1';

export type FetchResult =
  | {
      ok: true;
      httpStatus: number;
      durationMs: number;
      answer: unknown;
      /** The credentials the request carried (a token, a header value, Basic's encoding): what a shown answer redacts. */
      sent: string[];
    }
  | { ok: false; httpStatus: number | null; durationMs: number; errorClass: RunErrorClass; error: string };

/** OAuth2 access tokens by integration and credentials, in this container's memory only. */
export interface TokenCache {
  get(key: string, now: number): string | undefined;
  set(key: string, token: string, expiresAt: number): void;
  delete(key: string): void;
}

export const createTokenCache = (): TokenCache => {
  const tokens = new Map<string, { token: string; expiresAt: number }>();
  return {
    get(key, now) {
      const entry = tokens.get(key);
      if (entry && entry.expiresAt > now) return entry.token;
      tokens.delete(key);
      return undefined;
    },
    set(key, token, expiresAt) {
      tokens.set(key, { token, expiresAt });
    },
    delete(key) {
      tokens.delete(key);
    },
  };
};

export interface FetchDeps {
  egress: Egress;
  tokens: TokenCache;
  now?: () => number;
}

export interface Source {
  id: string;
  url: string;
  headers: Record<string, string>;
  auth: PullAuthView;
}

/** `host:port` of a URL, the port spelled out when the scheme implies it. */
const hostPortOf = (url: string): string => {
  const { hostname, port, protocol } = new URL(url);
  // Stryker disable next-line StringLiteral: only http and https reach here (the egress guard refuses others)
  return `${hostname}:${port || (protocol === 'https:' ? '443' : '80')}`;
};

/**
 * `maxBytes`: the most the request read, which the refusal of a larger answer names; `url`: where it
 * went, whose host and port a failed connection names.
 */
const egressProblem = (
  error: EgressError,
  maxBytes: number,
  url: string,
): { errorClass: RunErrorClass; error: string } => {
  switch (error.kind) {
    case 'timeout':
      return { errorClass: 'timeout', error: 'the source did not answer in time' };
    case 'too_large':
      return { errorClass: 'too_large', error: `the answer is larger than ${maxBytes} bytes` };
    case 'refused':
      return { errorClass: 'connection', error: 'refused by egress rules' };
    default:
      return {
        errorClass: 'connection',
        error: error.failure
          ? `the connection to the source failed: ${describeConnectionFailure(error.failure, hostPortOf(url))}`
          : 'the connection to the source failed',
      };
  }
};

const isJson = (response: EgressResponse) => {
  // Stryker disable next-line StringLiteral,OptionalChaining: split answers one part at least, and no header is no JSON whatever the text
  const type = (response.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || type.endsWith('+json');
};

/** What was received instead of JSON: its Content-Type (only the media type, never the body). */
const notJsonMessage = (response: EgressResponse): string => {
  const received = (response.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
  if (received === '') return 'the answer is not JSON: it has no Content-Type (application/json expected)';
  if (isJson(response))
    return `the answer is not valid JSON, though its Content-Type is ${printableType(received)}`;
  return `the answer is not JSON: its Content-Type is ${printableType(received)} (application/json expected)`;
};

/** A media type as it may be shown: at most 100 printable characters. */
const printableType = (type: string) => type.replace(/[^\x21-\x7e]/g, '?').slice(0, 100);

const parseJson = (response: EgressResponse): { ok: true; value: unknown } | { ok: false } => {
  // Stryker disable next-line ObjectLiteral: a failed parse is known by its missing ok, false or absent alike
  if (!isJson(response)) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(response.body)) };
  } catch {
    // Stryker disable next-line ObjectLiteral: a failed parse is known by its missing ok, false or absent alike
    return { ok: false };
  }
};

/**
 * The token cache's key: the integration and a hash of what the token was issued for and where it
 * goes (the source's origin), so a token is never sent to an origin it was not fetched for.
 */
const tokenKey = (
  source: Source,
  auth: Extract<PullAuthView, { type: 'oauth2_client_credentials' }>,
  secret: string,
) => {
  const issuedFor = JSON.stringify([auth.tokenUrl, auth.clientId, auth.scope, secret, originOf(source.url)]);
  // Stryker disable next-line StringLiteral: any encoding of the digest is a key; only its spelling changes
  const digest = createHash('sha256').update(issuedFor).digest('base64url');
  return `${source.id}:${digest}`;
};

/** A token from the cache or the token endpoint (RFC 6749 §4.4, client authenticated with HTTP Basic). */
const accessToken = async (
  { egress, tokens, now = Date.now }: FetchDeps,
  source: Source,
  auth: Extract<PullAuthView, { type: 'oauth2_client_credentials' }>,
  clientSecret: string,
): Promise<{ ok: true; token: string; key: string } | { ok: false; error: string }> => {
  const key = tokenKey(source, auth, clientSecret);
  const cached = tokens.get(key, now());
  if (cached) return { ok: true, token: cached, key };
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  if (auth.scope) form.set('scope', auth.scope);
  // RFC 6749 §2.3.1: the client id and secret form-encoded, then as HTTP Basic credentials.
  const basic = Buffer.from(
    `${encodeURIComponent(auth.clientId)}:${encodeURIComponent(clientSecret)}`,
  ).toString('base64');
  let response: EgressResponse;
  try {
    response = await egress.send({
      url: auth.tokenUrl,
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        authorization: `Basic ${basic}`,
        'user-agent': USER_AGENT,
      },
      body: form.toString(),
      timeoutMs: TOKEN_TIMEOUT_MS,
      maxBytes: MAX_TOKEN_ANSWER_BYTES,
    });
  } catch (error) {
    if (!(error instanceof EgressError)) throw error;
    return {
      ok: false,
      error: `the token request failed: ${egressProblem(error, MAX_TOKEN_ANSWER_BYTES, auth.tokenUrl).error}`,
    };
  }
  // Node's client answers the final status only: a 1xx never ends a request, so below 300 is success.
  if (response.status >= 300) {
    return { ok: false, error: `the token endpoint answered HTTP ${response.status}` };
  }
  const parsed = parseJson(response);
  const body = parsed.ok ? (parsed.value as { access_token?: unknown; expires_in?: unknown }) : undefined;
  if (typeof body?.access_token !== 'string' || body.access_token === '') {
    return { ok: false, error: 'the token endpoint answered without an access_token' };
  }
  if (!TOKEN_TEXT.test(body.access_token)) {
    return { ok: false, error: 'the token endpoint answered an access_token with control characters' };
  }
  // Without expires_in nobody knows how long the token lives: it is used for this fetch only.
  const expiresIn =
    typeof body.expires_in === 'number' ? Math.min(body.expires_in * 1000, MAX_TOKEN_LIFETIME_MS) : 0;
  if (expiresIn > 2 * TOKEN_MARGIN_MS) {
    tokens.set(key, body.access_token, now() + expiresIn - TOKEN_MARGIN_MS);
  }
  return { ok: true, token: body.access_token, key };
};

/** Fetches the source once and parses its JSON answer. */
export const fetchSource = async (
  deps: FetchDeps,
  source: Source,
  secrets: PullSecrets,
): Promise<FetchResult> => {
  const now = deps.now ?? Date.now;
  const started = now();
  const failed = (
    errorClass: RunErrorClass,
    error: string,
    httpStatus: number | null = null,
  ): FetchResult => ({
    ok: false,
    httpStatus,
    durationMs: Math.max(0, Math.round(now() - started)),
    errorClass,
    error,
  });
  // Stryker disable MethodExpression: Node's client sets headers caselessly, the later name winning in any case
  const headers: Record<string, string> = {
    ...Object.fromEntries(Object.entries(source.headers).map(([name, value]) => [name.toLowerCase(), value])),
    accept: 'application/json',
    'user-agent': USER_AGENT,
  };
  const { auth } = source;
  let cachedToken: string | undefined;
  const sent: string[] = [];
  switch (auth.type) {
    case 'bearer':
      headers.authorization = `Bearer ${secrets.token ?? ''}`;
      sent.push(secrets.token ?? '');
      break;
    case 'header':
      headers[auth.name.toLowerCase()] = secrets.value ?? '';
      sent.push(secrets.value ?? '');
      break;
    // Stryker restore MethodExpression
    case 'basic': {
      const basic = Buffer.from(`${auth.username}:${secrets.password ?? ''}`).toString('base64');
      headers.authorization = `Basic ${basic}`;
      sent.push(secrets.password ?? '', basic);
      break;
    }
    case 'oauth2_client_credentials': {
      const token = await accessToken(deps, source, auth, secrets.clientSecret ?? '');
      if (!token.ok) return failed('auth', token.error);
      headers.authorization = `Bearer ${token.token}`;
      cachedToken = token.key;
      sent.push(token.token, secrets.clientSecret ?? '');
      break;
    }
  }
  let response: EgressResponse;
  try {
    response = await deps.egress.send({
      url: source.url,
      // Stryker disable next-line StringLiteral: Node's client sends GET for a method it is not given
      method: 'GET',
      headers,
      timeoutMs: FETCH_TIMEOUT_MS,
      maxBytes: MAX_ANSWER_BYTES,
    });
  } catch (error) {
    if (!(error instanceof EgressError)) throw error;
    const { errorClass, error: text } = egressProblem(error, MAX_ANSWER_BYTES, source.url);
    return failed(errorClass, text);
  }
  const { status } = response;
  if (status === 401 || status === 403) {
    // A token the source no longer takes is not used again.
    // Stryker disable next-line ConditionalExpression: deleting no key from the cache changes nothing
    if (cachedToken) deps.tokens.delete(cachedToken);
    return failed('auth', `the source refused the credentials (HTTP ${status})`, status);
  }
  if (status >= 300) {
    const redirect = status < 400;
    return failed(
      'http_status',
      redirect
        ? `the source answered a redirect (HTTP ${status}); redirects are not followed`
        : `the source answered HTTP ${status}`,
      status,
    );
  }
  const parsed = parseJson(response);
  if (!parsed.ok) return failed('not_json', notJsonMessage(response), status);
  return {
    ok: true,
    httpStatus: status,
    durationMs: Math.max(0, Math.round(now() - started)),
    answer: parsed.value,
    sent: sent.filter((credential) => credential !== ''),
  };
};
