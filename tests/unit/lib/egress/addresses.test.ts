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
    for (const address of ['127.0.0.1', '127.8.9.10', '::1']) {
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
