import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Source allowlists: the addresses a key works from, as CIDR blocks (Stripe's IP restrictions on a
 * key, the allowlists of Kong or Zuplo). Addresses are read by `ipaddr.js`; nothing here parses one.
 *
 * - A block is stored in one normal form, so that two ways of writing it are one block: the network
 *   address of the block (its host bits zeroed: `203.0.113.7/24` is `203.0.113.0/24`), an IPv6
 *   address in RFC 5952's form (lower case, the longest run of zeros as `::`), and the prefix length
 *   in decimal without leading zeros.
 * - A bare address is that one address: `/32` for IPv4, `/128` for IPv6.
 * - An IPv4-mapped IPv6 block (`::ffff:203.0.113.7`) is the IPv4 block it maps: API Gateway names an
 *   IPv4 client by its IPv4 address, so only the IPv4 form can match it.
 * - Only the forms people write are read: four decimal parts for IPv4 (no `10.1`, no `0x7f.0.0.1`, no
 *   leading zeros, which some parsers read as octal) and IPv6 without a zone (`%eth0`: a source
 *   address seen on the internet never has one).
 */

type Block = [ipaddr.IPv4 | ipaddr.IPv6, number];

const readBlock = (text: string): Block | undefined => {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return [ipaddr.IPv4.parse(text), 32];
  if (ipaddr.IPv4.isValidCIDRFourPartDecimal(text)) return ipaddr.IPv4.parseCIDR(text);
  const block: [ipaddr.IPv6, number] | undefined = ipaddr.IPv6.isValid(text)
    ? [ipaddr.IPv6.parse(text), 128]
    : ipaddr.IPv6.isValidCIDR(text)
      ? ipaddr.IPv6.parseCIDR(text)
      : undefined;
  if (!block || block[0].zoneId !== undefined) return undefined;
  const [address, bits] = block;
  return address.isIPv4MappedAddress() && bits >= 96 ? [address.toIPv4Address(), bits - 96] : block;
};

/** A source block in its normal form, or undefined when `text` is not an address or block. */
export const normalSource = (text: string): string | undefined => {
  const block = readBlock(text);
  if (!block) return undefined;
  const [address, bits] = block;
  const network =
    address.kind() === 'ipv4'
      ? ipaddr.IPv4.networkAddressFromCIDR(`${address.toString()}/${bits}`)
      : ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/${bits}`);
  return `${network.toString()}/${bits}`;
};

/**
 * Whether a request from `sourceIp` (as API Gateway saw it) may use a key limited to `allowed`. Every
 * address may use a key without a list; with one, an address that cannot be read (or none) may not.
 */
export const sourceAllowed = (allowed: readonly string[] | null, sourceIp: string | undefined): boolean => {
  if (allowed === null) return true;
  if (!sourceIp || isIP(sourceIp) === 0) return false;
  const address = ipaddr.process(sourceIp);
  return allowed.some((block) => {
    const [network, bits] = ipaddr.parseCIDR(block);
    return network.kind() === address.kind() && address.match(network, bits);
  });
};
