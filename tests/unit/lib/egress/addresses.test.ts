import { describe, expect, it } from 'vitest';
import { isAllowedAddress } from '../../../../lib/egress/addresses';

const deployed = { allowLoopback: false };
const local = { allowLoopback: true };

/** Each class the egress rules refuse, with addresses of it (the review's among them). */
const REFUSED: Record<string, string[]> = {
  'private (RFC 1918)': ['10.0.0.1', '172.16.5.4', '172.31.255.255', '192.168.0.1'],
  'link-local (the metadata service)': ['169.254.169.254', '169.254.0.1', 'fe80::1'],
  'carrier-grade NAT (RFC 6598)': ['100.64.0.1', '100.127.255.254'],
  multicast: ['224.0.0.1', '239.255.255.250', 'ff02::1'],
  broadcast: ['255.255.255.255'],
  unspecified: ['0.0.0.0', '::'],
  'reserved and benchmarking': ['192.0.0.1', '192.0.2.1', '198.18.0.1', '240.0.0.1'],
  'unique-local IPv6': ['fc00::1', 'fd12:3456::1'],
  'site-local IPv6 (deprecated)': ['fec0::1', 'feff::1'],
  'IPv4-mapped IPv6': ['::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:8.8.8.8'],
  'IPv4-compatible IPv6': ['::127.0.0.1', '::a9fe:a9fe', '::0808:0808'],
  '6to4': ['2002:7f00:1::1', '2002:a9fe:a9fe::1'],
  Teredo: ['2001::1', '2001:0:4136:e378::1'],
  NAT64: ['64:ff9b::a9fe:a9fe', '64:ff9b:1::a9fe:a9fe'],
  'not an address as a resolver writes it': ['1.2.3', '0x7f.1', 'localhost', '', '[::1]'],
  // The third review's cases: the rest of each range, and the spellings of one address.
  '"this network" (0.0.0.0/8)': ['0.1.2.3', '0.255.255.255'],
  'documentation (TEST-NET-1 to 3, 2001:db8::/32, 3fff::/20)': [
    '198.51.100.1',
    '203.0.113.1',
    '2001:db8::1',
    '3fff::1',
  ],
  'the rest of the benchmarking and CGNAT ranges': ['198.19.255.255', '100.100.100.200'],
  'IETF protocol assignments and the 6to4 relay anycast': [
    '192.0.0.170',
    '192.88.99.1',
    '2001:2::1',
    '2001:10::1',
    '2001:20::1',
  ],
  'discard-only and other reserved IPv6': ['100::1', '5f00::1'],
  'multicast at the ends of its ranges': ['233.252.0.1', 'ff00::1'],
  'link-local with a zone, and the cloud metadata service’s IPv6 address': ['fe80::1%eth0', 'fd00:ec2::254'],
  'IPv4-mapped in hex and long form, and IPv4-translated': [
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    '0:0:0:0:0:ffff:127.0.0.1',
    '::ffff:100.64.0.1',
    '::ffff:0:7f00:1',
  ],
  'NAT64 and 6to4 of a public or a loopback address alike': [
    '64:ff9b::808:808',
    '64:ff9b::7f00:1',
    '2002:0808:0808::1',
  ],
};

describe('egress address rules', () => {
  for (const [kind, addresses] of Object.entries(REFUSED)) {
    it(`refuses ${kind} on every stage`, () => {
      for (const address of addresses) {
        expect(isAllowedAddress(address, deployed), address).toBe(false);
        expect(isAllowedAddress(address, local), address).toBe(false);
      }
    });
  }

  it('refuses loopback on deployed stages and allows it on the local stage only', () => {
    for (const address of ['127.0.0.1', '127.8.9.10', '127.255.255.254', '::1']) {
      expect(isAllowedAddress(address, deployed), address).toBe(false);
      expect(isAllowedAddress(address, local), address).toBe(true);
    }
  });

  it('allows global unicast addresses', () => {
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '2a00:1450:4001:81a::200e']) {
      expect(isAllowedAddress(address, deployed), address).toBe(true);
      expect(isAllowedAddress(address, local), address).toBe(true);
    }
  });
});
