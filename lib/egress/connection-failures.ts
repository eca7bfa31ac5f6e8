/**
 * Why a connection failed, from the error code Node's socket, DNS and TLS layers give (Node's own
 * HTTP client puts it on the error, fetch on its `cause`). The egress guard tells a pull source's
 * failure with it, and kpi-push its first contact: a refused port, a name that does not resolve, a
 * certificate the client does not trust and a connection the peer reset each need another fix.
 */
export type ConnectionFailure = 'refused' | 'dns' | 'tls' | 'reset' | 'unreachable';

const BY_CODE: Record<string, ConnectionFailure> = {
  ECONNREFUSED: 'refused',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  EAI_NONAME: 'dns',
  ECONNRESET: 'reset',
  EPIPE: 'reset',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  EPROTO: 'tls',
};

/** The error code of a failed request: its own (node:http) or its cause's (fetch). */
export const errorCode = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  const causeCode = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  return typeof causeCode === 'string' ? causeCode : undefined;
};

/** The failure a code stands for; certificate and handshake codes (CERT_*, ERR_TLS_*, ERR_SSL_*, …) are TLS. */
export const connectionFailureOf = (error: unknown): ConnectionFailure | undefined => {
  const code = errorCode(error);
  if (code === undefined) return undefined;
  return BY_CODE[code] ?? (/CERT|TLS|SSL/.test(code) ? 'tls' : undefined);
};

/** The sentence for a failure at `host:port`, e.g. "the connection to api.example.com:8443 was refused". */
export const describeConnectionFailure = (failure: ConnectionFailure, hostPort: string): string => {
  const host = hostPort.replace(/:\d+$/, '');
  switch (failure) {
    case 'refused':
      return `the connection to ${hostPort} was refused (nothing listens at that port)`;
    case 'dns':
      return `the host name ${host} does not resolve (DNS)`;
    case 'tls':
      return `the TLS handshake with ${hostPort} failed (certificate or protocol)`;
    case 'reset':
      return `${hostPort} reset the connection`;
    case 'unreachable':
      return `${hostPort} is unreachable from the service`;
  }
};
