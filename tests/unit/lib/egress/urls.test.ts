import { describe, expect, it } from 'vitest';
import { originOf, tenantUrlProblem, withoutQueryValues } from '../../../../lib/egress/urls';

const deployed = { local: false };
const local = { local: true };

describe('tenant URLs (text check at creation)', () => {
  it('accepts https URLs of public hosts and addresses on every stage', () => {
    for (const url of [
      'https://hooks.example.com/strategy',
      'https://hooks.example.com:8443/a?b=c',
      'https://93.184.216.34/hooks',
      'https://[2606:2800:220:1:248:1893:25c8:1946]/hooks',
    ]) {
      expect(tenantUrlProblem(url, deployed), url).toBeUndefined();
      expect(tenantUrlProblem(url, local), url).toBeUndefined();
    }
  });

  it('refuses http, except to this machine on the local stage', () => {
    for (const url of ['http://localhost:4000/x', 'http://127.0.0.1:4000/x', 'http://[::1]:4000/x']) {
      expect(tenantUrlProblem(url, local), url).toBeUndefined();
      expect(tenantUrlProblem(url, deployed), url).toBe('must use https');
    }
    expect(tenantUrlProblem('http://example.com/x', local)).toMatch(/must use https/);
    expect(tenantUrlProblem('http://192.168.1.10/x', local)).toMatch(/must use https/);
    expect(tenantUrlProblem('http://example.com/x', deployed)).toBe('must use https');
  });

  it('refuses other schemes, malformed URLs and credentials', () => {
    for (const url of ['ftp://example.com/x', 'file:///etc/passwd', 'javascript:alert(1)']) {
      expect(tenantUrlProblem(url, deployed), url).toBe('must use https');
    }
    expect(tenantUrlProblem('example.com/hooks', deployed)).toMatch(/absolute URL/);
    expect(tenantUrlProblem('https://user:secret@example.com/', deployed)).toMatch(/user name or password/);
    expect(tenantUrlProblem('https://user@example.com/', local)).toMatch(/user name or password/);
  });

  it('refuses, on deployed stages, hosts that are private, loopback, link-local or otherwise internal addresses (SSRF)', () => {
    for (const url of [
      'https://10.0.0.1/',
      'https://172.16.5.4/',
      'https://192.168.0.1/',
      'https://127.0.0.1/',
      'https://0x7f.1/',
      'https://2130706433/',
      // Every numeric spelling of 127.0.0.1 the URL parser reads (WHATWG: octal, hex, fewer parts).
      'https://0177.0.0.1/',
      'https://0x7f000001/',
      'https://017700000001/',
      'https://127.1/',
      'https://0x7f.0.0.1/',
      'https://0xA9.0xFE.0xA9.0xFE/',
      'https://127.0.0.1./',
      'https://[::ffff:7f00:1]/',
      'https://[0:0:0:0:0:ffff:127.0.0.1]/',
      'https://169.254.169.254/latest/meta-data/',
      'https://100.64.0.1/',
      'https://0.0.0.0/',
      'https://224.0.0.1/',
      'https://[::1]/',
      'https://[::]/',
      'https://[fd00::1]/',
      'https://[fe80::1]/',
      'https://[::ffff:10.0.0.1]/',
      'https://[::ffff:169.254.169.254]/',
      // Forms a text check of literal ranges let through: IPv4-compatible, 6to4, site-local, NAT64.
      'https://[::127.0.0.1]/',
      'https://[::a9fe:a9fe]/',
      'https://[2002:7f00:1::1]/',
      'https://[fec0::1]/',
      'https://[64:ff9b:1::a9fe:a9fe]/',
      'https://[2001::1]/',
    ]) {
      expect(tenantUrlProblem(url, deployed), url).toMatch(/private, loopback, link-local or other internal/);
    }
    for (const url of [
      'https://localhost/',
      'https://api.localhost/',
      'https://localhost./',
      'https://LOCALHOST./x',
    ]) {
      expect(tenantUrlProblem(url, deployed), url).toMatch(/localhost/);
    }
    // The local stage delivers to this machine and its network.
    expect(tenantUrlProblem('https://192.168.0.1/', local)).toBeUndefined();
  });
});

describe('a URL shown without its query values', () => {
  it('keeps every name and replaces every value, an empty one too; the rest as written', () => {
    const cases: [string, string][] = [
      ['https://api.example.com/v1/mrr', 'https://api.example.com/v1/mrr'],
      ['https://api.example.com/mrr?api_key=sk_live_1', 'https://api.example.com/mrr?api_key=[redacted]'],
      [
        'https://api.example.com/mrr?from=2026-01&api_key=s%3Dk&flag&empty=',
        'https://api.example.com/mrr?from=[redacted]&api_key=[redacted]&flag&empty=[redacted]',
      ],
      ['https://api.example.com/mrr?key=a=b#part?x=y', 'https://api.example.com/mrr?key=[redacted]#part?x=y'],
      ['https://api.example.com/mrr#only?token=x', 'https://api.example.com/mrr#only?token=x'],
      ['https://API.example.com:8443/Path?T=1', 'https://API.example.com:8443/Path?T=[redacted]'],
    ];
    for (const [url, shown] of cases) expect(withoutQueryValues(url), url).toBe(shown);
  });
});

describe('a URL’s origin', () => {
  it('is the parser’s: scheme, host in lower case, a port other than the default; the text when it is no URL', () => {
    expect(originOf('https://API.Example.com:443/x?y')).toBe('https://api.example.com');
    expect(originOf('https://api.example.com:8443/x')).toBe('https://api.example.com:8443');
    expect(originOf('http://0x7f.1/x')).toBe('http://127.0.0.1');
    expect(originOf('not a url')).toBe('not a url');
  });
});
