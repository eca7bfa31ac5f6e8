import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { isAllowedAddress } from './addresses';

/**
 * Which URLs a tenant may give the service to call (webhook endpoints, pull sources, OAuth token
 * endpoints): checked as text when the URL is saved, for a fast 400 that names the problem. Only
 * HTTPS, no credentials in the URL, and on deployed stages no `localhost` name and no IP-literal host
 * that the egress rules refuse (./addresses.ts). The local stage (`npm start`, the tests) may also use
 * `http://` to this machine: `localhost`, `127.0.0.1` or `[::1]`.
 *
 * The text is not the last word: a name can resolve to anything, and resolve differently later. Every
 * request checks the addresses it connects to (./index.ts).
 */
export const MAX_TENANT_URL_LENGTH = 2048;

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * A URL's host as the egress rules judge it: lower case, without the brackets of an IPv6 literal and
 * without the trailing dot of a fully qualified name (`localhost.` is `localhost`).
 */
export const hostOf = (url: URL): string => {
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  return host.startsWith('[') ? host.slice(1, -1) : host;
};

/** Why `text` cannot be a URL the service calls for a tenant, or undefined when it can. */
export const tenantUrlProblem = (text: string, { local }: { local: boolean }): string | undefined => {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute URL such as https://example.com/webhooks';
  }
  if (url.username !== '' || url.password !== '') return 'must not contain a user name or password';
  const host = hostOf(url);
  if (url.protocol === 'http:') {
    if (local && LOCAL_HOSTS.has(url.hostname.toLowerCase())) return undefined;
    return local ? 'must use https (http only for localhost, 127.0.0.1 or [::1])' : 'must use https';
  }
  if (url.protocol !== 'https:') return 'must use https';
  if (local) return undefined;
  if (host === 'localhost' || host.endsWith('.localhost')) return 'must not point at localhost';
  if (isIP(host) !== 0 && !isAllowedAddress(host, { allowLoopback: false })) {
    return 'must not be an address of a private, loopback, link-local or other internal network';
  }
  return undefined;
};

/**
 * A tenant URL as logs may keep it: its origin, and a hash of the rest. Webhook URLs of chat tools
 * (Slack's `/services/T…/B…/<token>`) and many APIs carry a secret in their path or query, which must
 * not reach the logs; the hash still tells whether two lines name the same URL.
 */
export const urlForLog = (text: string): { urlOrigin: string; urlRestSha256: string } => {
  const url = new URL(text);
  const rest = `${url.pathname}${url.search}${url.hash}`;
  return {
    urlOrigin: url.origin,
    urlRestSha256: createHash('sha256').update(rest, 'utf8').digest('hex').slice(0, 16),
  };
};

/** A URL's origin (scheme, host, port) as the URL parser spells it, or the text itself when it is no URL. */
export const originOf = (text: string): string => {
  try {
    return new URL(text).origin;
  } catch {
    return text;
  }
};

/** What a query value is shown as to those who may not read it. */
export const REDACTED = '[redacted]';

/**
 * The URL as stored, with the value of every query parameter replaced by `[redacted]` (the names
 * stay, and so does a parameter without a value): sources that take `?api_key=` carry a credential
 * there. Spelled as given otherwise, so the rest reads as the tenant wrote it.
 */
export const withoutQueryValues = (text: string): string => {
  const hash = text.indexOf('#');
  const [before, fragment] = hash < 0 ? [text, ''] : [text.slice(0, hash), text.slice(hash)];
  const question = before.indexOf('?');
  if (question < 0) return text;
  const query = before
    .slice(question + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      return equals < 0 ? pair : `${pair.slice(0, equals)}=${REDACTED}`;
    })
    .join('&');
  return `${before.slice(0, question + 1)}${query}${fragment}`;
};
