import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Stand-ins for GitHub's side of secret scanning: P-256 key pairs made here, served as GitHub
 * publishes its keys (`{"public_keys":[…]}`) by a real HTTP server on a free port, and reports signed
 * as GitHub signs them (ECDSA SHA-256 over the raw body, base64 of ASN.1 DER).
 */
export interface SigningKey {
  identifier: string;
  privateKeyPem: string;
  publicKeyPem: string;
}

export const newSigningKey = (): SigningKey => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  return {
    // GitHub's identifiers are hex SHA-256 digests of the key.
    identifier: createHash('sha256')
      .update(publicKey.export({ type: 'spki', format: 'der' }))
      .digest('hex'),
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyPem,
  };
};

/** The two headers GitHub sends with a report whose body is exactly `body`. */
export const signedHeaders = (
  body: string | Buffer,
  key: Pick<SigningKey, 'identifier' | 'privateKeyPem'>,
) => ({
  'Github-Public-Key-Identifier': key.identifier,
  'Github-Public-Key-Signature': sign('sha256', Buffer.from(body), key.privateKeyPem).toString('base64'),
});

/** GitHub's published document for these keys; the first is current. */
export const publishedKeys = (keys: SigningKey[]) => ({
  public_keys: keys.map((key, index) => ({
    key_identifier: key.identifier,
    key: key.publicKeyPem,
    is_current: index === 0,
  })),
});

/** Serves `keys` at `url` and counts the fetches; `serve` changes what it serves (a rotation). */
export const startKeysServer = async (keys: SigningKey[]) => {
  let served = keys;
  let status = 200;
  const server = createServer((request, response) => {
    state.fetches++;
    state.accept = request.headers.accept;
    request.resume();
    response
      .writeHead(status, { 'content-type': 'application/json' })
      .end(JSON.stringify(publishedKeys(served)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const state = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/meta/public_keys/secret_scanning`,
    fetches: 0,
    /** The Accept header of the last fetch. */
    accept: undefined as string | undefined,
    serve: (next: SigningKey[]) => {
      served = next;
    },
    /** Answers every fetch with this status (e.g. 503: GitHub is down). */
    answer: (next: number) => {
      status = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return state;
};
