import { BlockList, isIP } from 'node:net';

/**
 * Which URLs a webhook endpoint may have. The service sends requests to them from inside AWS, so they
 * are also a way to make the service call something (SSRF): only HTTPS, no credentials in the URL, and
 * on deployed stages no host that is an IP address of a private, loopback, link-local (the cloud
 * metadata service at 169.254.169.254), shared (CGNAT), multicast or unspecified range, nor `localhost`.
 * The local stage (`npm start`, the tests) may also use `http://` to this machine: `localhost`,
 * `127.0.0.1` or `[::1]`.
 *
 * Host names are not resolved here: a name that resolves to such an address is not refused at
 * creation (docs/security.md, "Webhooks", says why that is acceptable for a Lambda outside a VPC).
 */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Address ranges no deployed endpoint may be in (RFC 6890 special-purpose ranges that reach inwards). */
const INTERNAL = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  INTERNAL.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const) {
  INTERNAL.addSubnet(network, prefix, 'ipv6');
}

/** An IP literal host of a URL (`[…]` around IPv6) in an internal range. */
const isInternalAddress = (hostname: string): boolean => {
  const address = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  const family = isIP(address);
  if (family === 0) return false;
  return INTERNAL.check(address, family === 4 ? 'ipv4' : 'ipv6');
};

/** Why `text` cannot be a webhook URL, or undefined when it can. */
export const webhookUrlProblem = (text: string, { local }: { local: boolean }): string | undefined => {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute URL such as https://example.com/webhooks';
  }
  if (url.username !== '' || url.password !== '') return 'must not contain a user name or password';
  const host = url.hostname.toLowerCase();
  if (url.protocol === 'http:') {
    if (local && LOCAL_HOSTS.has(host)) return undefined;
    return local ? 'must use https (http only for localhost, 127.0.0.1 or [::1])' : 'must use https';
  }
  if (url.protocol !== 'https:') return 'must use https';
  if (local) return undefined;
  if (host === 'localhost' || host.endsWith('.localhost')) return 'must not point at localhost';
  if (isInternalAddress(host)) return 'must not be an address of a private, loopback or link-local network';
  return undefined;
};
