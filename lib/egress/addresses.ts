import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which addresses the service may connect to on a tenant's behalf. A tenant chooses the URL, so a
 * request to it is also a way to make the service call something inside (SSRF): the cloud metadata
 * service, a VPC neighbour, this host. Only global unicast addresses are allowed; everything
 * `ipaddr.js` classifies otherwise is refused: private, loopback, link-local, CGNAT, multicast,
 * broadcast, unspecified, reserved and benchmarking ranges, unique-local and site-local IPv6, and
 * every IPv6 form that carries an IPv4 address, whose IPv4 part could reach inwards (IPv4-mapped,
 * 6to4, Teredo, NAT64). IPv4-compatible addresses (`::a.b.c.d`, deprecated by RFC 4291) are
 * classified as unicast by the library, so their range is refused by name here.
 *
 * The local stage (`npm start`, the tests) may also reach this machine: loopback addresses only.
 */
export interface AddressRules {
  allowLoopback: boolean;
}

/** IPv4-compatible IPv6 (`::a.b.c.d`): the library counts it as unicast; the service refuses it. */
const IPV4_COMPATIBLE = /* @__PURE__ */ ipaddr.IPv6.parseCIDR('::/96');

/** Whether the service may connect to `address` (an IPv4 or IPv6 address without brackets). */
export const isAllowedAddress = (address: string, { allowLoopback }: AddressRules): boolean => {
  // Only an address as a resolver or a URL parser writes it: ipaddr.js also reads shorthand like `1.2.3`.
  if (isIP(address) === 0) return false;
  const parsed = ipaddr.parse(address);
  const range = parsed.range();
  if (range === 'loopback') return allowLoopback;
  if (range !== 'unicast') return false;
  return !(parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).match(IPV4_COMPATIBLE));
};
