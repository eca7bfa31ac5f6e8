import { describe, expect, it } from 'vitest';
import { normalSource, sourceAllowed } from '../../../../lib/api-keys/sources';

describe('a source block in its normal form', () => {
  it('a bare address is that one address: /32 for IPv4, /128 for IPv6', () => {
    expect(normalSource('203.0.113.7')).toBe('203.0.113.7/32');
    expect(normalSource('2001:db8::7')).toBe('2001:db8::7/128');
  });

  it('is the network address of the block, so two ways of writing a block are one', () => {
    expect(normalSource('203.0.113.7/24')).toBe('203.0.113.0/24');
    expect(normalSource('203.0.113.0/24')).toBe('203.0.113.0/24');
    expect(normalSource('10.20.30.40/8')).toBe('10.0.0.0/8');
    expect(normalSource('10.0.0.1/024')).toBe('10.0.0.0/24');
    expect(normalSource('0.0.0.0/0')).toBe('0.0.0.0/0');
    expect(normalSource('2001:db8:4:5::1/48')).toBe('2001:db8:4::/48');
    expect(normalSource('::/0')).toBe('::/0');
  });

  it('writes IPv6 as RFC 5952 does: lower case, the longest run of zeros as ::', () => {
    expect(normalSource('2001:0DB8:0000:0000:0000:0000:0000:0001')).toBe('2001:db8::1/128');
    expect(normalSource('2001:DB8:0:0:1:0:0:0/128')).toBe('2001:db8:0:0:1::/128');
    expect(normalSource('FFFF:FFFF:FFFF:FFFF:FFFF:FFFF:FFFF:FFFF')).toBe(
      'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128',
    );
  });

  it('reads an IPv4-mapped IPv6 block as the IPv4 block it maps, and a shorter one as IPv6', () => {
    expect(normalSource('::ffff:203.0.113.7')).toBe('203.0.113.7/32');
    expect(normalSource('::ffff:203.0.113.0/120')).toBe('203.0.113.0/24');
    expect(normalSource('::ffff:0:0/96')).toBe('0.0.0.0/0');
    expect(normalSource('::ffff:0:0/95')).toBe('::fffe:0:0/95');
  });

  it('reads only the forms people write: no shorthand, hex, octal-looking parts, zones, bad prefixes or spaces', () => {
    for (const text of [
      '',
      'localhost',
      '10.1',
      '10.1/16',
      '1.2.3.4.5',
      '256.1.1.1',
      '0x7f.0.0.1/8',
      '010.0.0.1/24',
      '10.0.0.1/33',
      '10.0.0.1/',
      '10.0.0.1/-1',
      '10.0.0.0/8/8',
      ' 10.0.0.1',
      '2001:db8::/129',
      '2001:db8:::1',
      'fe80::1%eth0',
      'fe80::1%eth0/64',
      '203.0.113.0-203.0.113.9',
    ]) {
      expect(normalSource(text), text).toBeUndefined();
    }
  });
});

describe('whether a source may use a key', () => {
  it('any address may use a key without a list', () => {
    expect(sourceAllowed(null, '198.51.100.23')).toBe(true);
    expect(sourceAllowed(null, undefined)).toBe(true);
  });

  it('with a list: an address inside one of its blocks, and no other', () => {
    const list = ['203.0.113.0/28', '198.51.100.23/32', '2001:db8:4::/48'];
    expect(sourceAllowed(list, '203.0.113.0')).toBe(true);
    expect(sourceAllowed(list, '203.0.113.15')).toBe(true);
    expect(sourceAllowed(list, '203.0.113.16')).toBe(false);
    expect(sourceAllowed(list, '198.51.100.23')).toBe(true);
    expect(sourceAllowed(list, '198.51.100.22')).toBe(false);
    expect(sourceAllowed(list, '2001:db8:4:ffff::1')).toBe(true);
    expect(sourceAllowed(list, '2001:db8:5::1')).toBe(false);
  });

  it('an IPv4 client sent as an IPv4-mapped IPv6 address is matched as IPv4; the families never match each other', () => {
    expect(sourceAllowed(['127.0.0.2/32'], '::ffff:127.0.0.2')).toBe(true);
    expect(sourceAllowed(['127.0.0.2/32'], '::ffff:127.0.0.3')).toBe(false);
    // `::/0` is every IPv6 address, not an IPv4 one; `0.0.0.0/0` every IPv4 address, not an IPv6 one.
    expect(sourceAllowed(['::/0'], '203.0.113.7')).toBe(false);
    expect(sourceAllowed(['::/0'], '2001:db8::1')).toBe(true);
    expect(sourceAllowed(['0.0.0.0/0'], '2001:db8::1')).toBe(false);
    expect(sourceAllowed(['0.0.0.0/0'], '203.0.113.7')).toBe(true);
  });

  it('with a list, a request whose address is unknown or unreadable is refused', () => {
    expect(sourceAllowed(['0.0.0.0/0', '::/0'], undefined)).toBe(false);
    expect(sourceAllowed(['0.0.0.0/0', '::/0'], '')).toBe(false);
    expect(sourceAllowed(['0.0.0.0/0', '::/0'], 'test-invoke-source-ip')).toBe(false);
    expect(sourceAllowed(['10.0.0.0/8'], '10.1')).toBe(false);
  });
});
