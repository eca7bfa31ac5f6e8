import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { type GithubKeys, isSignedBy, KeysUnavailable } from '../auth/github-keys';
import { AppError } from '../errors';
import { assertBodySize, rawBodyBytes } from './middleware';
import { header } from './responses';

export const KEY_IDENTIFIER_HEADER = 'Github-Public-Key-Identifier';
export const SIGNATURE_HEADER = 'Github-Public-Key-Signature';

/**
 * One answer for every request GitHub did not sign: no signature, an unknown key identifier and a
 * signature that does not verify look the same from outside, so a prober learns nothing. A 401 names
 * its scheme (RFC 9110 §11.6.1), in the form of the push routes' `ApiKey header="x-api-key"`.
 */
const notSigned = () =>
  new AppError('UNAUTHENTICATED', 'The request is not signed by GitHub secret scanning.', {
    headers: { 'WWW-Authenticate': `GithubSignature header="${SIGNATURE_HEADER}"` },
  });

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Authenticates a request of GitHub's secret scanning (docs/security.md, "Leaked keys: GitHub secret
 * scanning"): the ECDSA signature in `Github-Public-Key-Signature` (base64 of ASN.1 DER) over the
 * body's raw bytes, by the published key named in `Github-Public-Key-Identifier`. It runs before the body is parsed,
 * on the bytes as received: parsing and writing JSON back would change them. The body's size is
 * checked first (413), so an oversized body is never hashed. A header sent twice with different
 * values is refused like a missing one.
 */
export const githubSignature = (
  keys: GithubKeys,
  maxBytes: number,
): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> => ({
  before: async ({ event }) => {
    assertBodySize(event, maxBytes);
    let identifier: string | undefined;
    let signature: string | undefined;
    try {
      // Stryker disable next-line OptionalChaining: an absent header ends unsigned either way
      identifier = header(event, KEY_IDENTIFIER_HEADER)?.trim();
      // Stryker disable next-line OptionalChaining: an absent header ends unsigned either way
      signature = header(event, SIGNATURE_HEADER)?.trim();
    } catch {
      // A header sent twice with different values: unsigned, as below.
    }
    if (!identifier || !signature || !BASE64.test(signature)) throw notSigned();
    let key: Awaited<ReturnType<GithubKeys['keyFor']>>;
    try {
      key = await keys.keyFor(identifier);
    } catch (error) {
      if (!(error instanceof KeysUnavailable)) throw error;
      // Stryker disable next-line StringLiteral: a 5xx answers the generic text and logs the cause, never this
      throw new AppError('SERVICE_UNAVAILABLE', 'GitHub’s public keys could not be fetched.', {
        headers: { 'Retry-After': '60' },
        cause: error,
      });
    }
    if (!key || !isSignedBy(key, rawBodyBytes(event), Buffer.from(signature, 'base64'))) throw notSigned();
  },
});
