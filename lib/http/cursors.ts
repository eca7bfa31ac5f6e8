import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { SecretSource } from '../auth/jwt-secret';
import { invalidCursor } from '../db/pagination';

/**
 * The cursors the API hands out (`nextCursor`) and takes back (`?cursor=`), sealed: AES-256-GCM over the
 * storage's cursor (DynamoDB's LastEvaluatedKey, which holds table keys such as `APIKEY#<sha256 of a
 * raw key>`), so a client can neither read one nor make or alter one. The associated data binds a
 * cursor to the operation, the tenant and the path of the request that produced it: a cursor of one
 * list is refused by every other. Refused cursors are the same 400 as a malformed one.
 *
 * The key comes from the secret store that holds the JWT key (SSM on AWS), derived from each of its
 * lines with HKDF under a label of its own, so it never equals a signing key: the first line seals,
 * every line opens, and a rotation of the JWT key rotates this key with it.
 */
export interface CursorSeal {
  seal(cursor: string, binding: string): Promise<string>;
  /** The storage cursor, or a 400 `validation-failed` naming `cursor`. */
  open(sealed: string, binding: string): Promise<string>;
}

const VERSION = 'c1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const LABEL = 'strategy-service pagination cursor v1';

const keyOf = (line: string) => Buffer.from(hkdfSync('sha256', line, '', LABEL, 32));

export const createCursorSeal = (secret: SecretSource): CursorSeal => {
  let derived: { text: string; keys: Buffer[] } | undefined;
  const keys = async () => {
    const text = typeof secret === 'string' ? secret : await secret();
    if (derived?.text !== text) {
      const lines = text
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean);
      derived = { text, keys: lines.map(keyOf) };
    }
    return derived.keys;
  };

  return {
    async seal(cursor, binding) {
      const [key] = (await keys()) as [Buffer];
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(binding, 'utf8'));
      const sealed = Buffer.concat([iv, cipher.update(cursor, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return `${VERSION}${sealed.toString('base64url')}`;
    },

    async open(sealed, binding) {
      const bytes = sealed.startsWith(VERSION)
        ? Buffer.from(sealed.slice(VERSION.length), 'base64url')
        : undefined;
      // base64url decoding skips what is not base64url: only a text that is its own encoding is a cursor.
      if (
        !bytes ||
        bytes.length <= IV_BYTES + TAG_BYTES ||
        bytes.toString('base64url') !== sealed.slice(VERSION.length)
      ) {
        throw invalidCursor();
      }
      const iv = bytes.subarray(0, IV_BYTES);
      const tag = bytes.subarray(bytes.length - TAG_BYTES);
      const body = bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES);
      for (const key of await keys()) {
        try {
          const decipher = createDecipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(binding, 'utf8'));
          decipher.setAuthTag(tag);
          return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
        } catch {
          // Not sealed with this key (or altered): the next key, if any.
        }
      }
      throw invalidCursor();
    },
  };
};
