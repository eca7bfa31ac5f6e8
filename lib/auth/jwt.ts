import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';

/**
 * JSON Web Tokens (RFC 7519) in JWS compact serialization (RFC 7515 §7.1), HS256 only, with
 * `node:crypto`. What a general library (jose) does for every algorithm is reduced to one: 18 KB less
 * in each function that signs or verifies (issue 11's 100 KB budget) and no WebCrypto key import per
 * token. The verifier is as strict as the service configured jose to be, and stricter where the RFCs
 * allow: tests/unit/lib/auth/jwt.test.ts checks it against jose both ways, and against the attacks.
 *
 * - RFC 8725 §3.1: the algorithm is pinned; the header's `alg` is checked, never used to pick one.
 * - RFC 7515 §4.1.11: a `crit` header is refused (no extension is understood).
 * - RFC 7515 §2: base64url without padding; a signature must be canonical (re-encodes to itself), so one
 *   token has one form.
 * - RFC 7519 §7.2: the payload must be a JSON object; `exp` and `nbf` are checked (no clock tolerance),
 *   `iss` and `aud` must match, the required claims must be present.
 */

export const JWT_ALGORITHM = 'HS256';

export type JwtFailure = 'malformed' | 'signature' | 'expired' | 'not-yet-valid' | 'claims';

export class JwtError extends Error {
  override name = 'JwtError';
  constructor(readonly failure: JwtFailure) {
    super(`JWT rejected: ${failure}`);
  }
}

export interface JwtPayload {
  [claim: string]: unknown;
  iss?: string;
  sub?: string;
  aud?: string | string[];
  exp?: number;
  nbf?: number;
  iat?: number;
  jti?: string;
}

/** A key for HMAC-SHA-256; made once per key text (a KeyObject is reused without copying the key). */
export const hmacKey = (secret: string | Uint8Array): KeyObject => createSecretKey(Buffer.from(secret));

// Stryker disable next-line StringLiteral: Buffer.from reads a string as UTF-8 when no encoding is named
const encode = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

const mac = (key: KeyObject, signingInput: string) => createHmac('sha256', key).update(signingInput).digest();

export const signJwt = (payload: JwtPayload, key: KeyObject, typ: string): string => {
  const signingInput = `${encode({ alg: JWT_ALGORITHM, typ })}.${encode(payload)}`;
  return `${signingInput}.${mac(key, signingInput).toString('base64url')}`;
};

const BASE64URL = /^[A-Za-z0-9_-]+$/;

const decodeObject = (part: string): Record<string, unknown> => {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    // Not JSON: `value` stays undefined, which the object check below refuses.
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new JwtError('malformed');
  return value as Record<string, unknown>;
};

/** `typ` compared as RFC 7515 §4.1.9 suggests (and jose does): case-insensitive, `application/` optional. */
const normalizeTyp = (typ: unknown) =>
  typeof typ === 'string' ? typ.toLowerCase().replace(/^application\//, '') : undefined;

export interface VerifyOptions {
  typ: string;
  issuer: string;
  audience: string;
  requiredClaims: readonly string[];
  /** Epoch seconds. */
  now: number;
}

/**
 * Verifies a token against any of `keys` (a rotation signs with the first and verifies with all) and
 * returns its claims; throws a `JwtError` saying why not.
 */
export const verifyJwt = (token: string, keys: readonly KeyObject[], options: VerifyOptions): JwtPayload => {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((part) => BASE64URL.test(part))) throw new JwtError('malformed');
  const [encodedHeader, encodedPayload, encodedSignature] = parts as [string, string, string];
  const header = decodeObject(encodedHeader);
  if (
    header.alg !== JWT_ALGORITHM ||
    'crit' in header ||
    normalizeTyp(header.typ) !== normalizeTyp(options.typ)
  ) {
    throw new JwtError('malformed');
  }
  const signature = Buffer.from(encodedSignature, 'base64url');
  if (signature.toString('base64url') !== encodedSignature) throw new JwtError('malformed');
  const signingInput = `${encodedHeader}.${encodedPayload}`;
  const signed = keys.some((key) => {
    const expected = mac(key, signingInput);
    return expected.length === signature.length && timingSafeEqual(expected, signature);
  });
  if (!signed) throw new JwtError('signature');

  const payload = decodeObject(encodedPayload) as JwtPayload;
  for (const claim of options.requiredClaims) if (!(claim in payload)) throw new JwtError('claims');
  for (const claim of ['exp', 'nbf', 'iat'] as const) {
    // Number.isFinite is false for anything but a finite number (a string, null, Infinity from 1e400).
    if (claim in payload && !Number.isFinite(payload[claim])) {
      throw new JwtError('claims');
    }
  }
  if (payload.iss !== options.issuer) throw new JwtError('claims');
  const audiences = [payload.aud].flat();
  if (!audiences.includes(options.audience)) throw new JwtError('claims');
  // Stryker disable next-line ConditionalExpression: undefined compares false, so the first test only says why
  if (payload.exp !== undefined && payload.exp <= options.now) throw new JwtError('expired');
  // Stryker disable next-line ConditionalExpression: as above
  if (payload.nbf !== undefined && payload.nbf > options.now) throw new JwtError('not-yet-valid');
  return payload;
};
