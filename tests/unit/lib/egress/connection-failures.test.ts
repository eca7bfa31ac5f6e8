import { describe, expect, it } from 'vitest';
import {
  connectionFailureOf,
  describeConnectionFailure,
  errorCode,
} from '../../../../lib/egress/connection-failures';

/** Why a connection failed, told from Node's error codes, the same way for the egress guard and kpi-push. */
describe('a failed connection', () => {
  it.each([
    ['ECONNREFUSED', 'refused'],
    ['ENOTFOUND', 'dns'],
    ['EAI_AGAIN', 'dns'],
    ['EAI_NONAME', 'dns'],
    ['ECONNRESET', 'reset'],
    ['EPIPE', 'reset'],
    ['EHOSTUNREACH', 'unreachable'],
    ['ENETUNREACH', 'unreachable'],
    ['EPROTO', 'tls'],
    ['CERT_HAS_EXPIRED', 'tls'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'tls'],
  ])('%s is %s, on the error (node:http) or its cause (fetch)', (code, failure) => {
    expect(connectionFailureOf(Object.assign(new Error('x'), { code }))).toBe(failure);
    expect(connectionFailureOf(new TypeError('fetch failed', { cause: { code } }))).toBe(failure);
  });

  it('is unknown without a code or with one of no known kind', () => {
    expect(connectionFailureOf(new Error('x'))).toBeUndefined();
    expect(connectionFailureOf(Object.assign(new Error('x'), { code: 'EWHATEVER' }))).toBeUndefined();
    expect(connectionFailureOf(null)).toBeUndefined();
    expect(errorCode(Object.assign(new Error('x'), { code: 42 }))).toBeUndefined();
    expect(errorCode({ cause: { code: 'ECONNRESET' } })).toBe('ECONNRESET');
  });

  it('is told with the host and port', () => {
    expect(describeConnectionFailure('refused', 'api.example.com:8443')).toBe(
      'the connection to api.example.com:8443 was refused (nothing listens at that port)',
    );
    expect(describeConnectionFailure('dns', 'api.example.com:443')).toBe(
      'the host name api.example.com does not resolve (DNS)',
    );
    expect(describeConnectionFailure('tls', 'api.example.com:443')).toBe(
      'the TLS handshake with api.example.com:443 failed (certificate or protocol)',
    );
    expect(describeConnectionFailure('reset', 'api.example.com:443')).toBe(
      'api.example.com:443 reset the connection',
    );
    expect(describeConnectionFailure('unreachable', '[2001:db8::1]:443')).toBe(
      '[2001:db8::1]:443 is unreachable from the service',
    );
  });
});
