import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Authenticated encryption of small texts the service hands out or keeps (list cursors, webhook
 * signing secrets): AES-256-GCM, with associated data that binds a sealed text to where it belongs,
 * so it opens nowhere else.
 *
 * The key comes from the secret store that holds the JWT key (SSM on AWS), derived from each of its
 * lines with HKDF under the caller's own label, so it never equals a signing key nor another use's key:
 * the first line seals, every line opens, and a rotation of the JWT key rotates these keys with it.
 */
/** Where a key's text comes from: the text itself, or a function that reads it (from SSM on AWS). */
export type SecretSource = string | (() => Promise<string>);

export interface Seal {
  seal(text: string, binding: string): Promise<string>;
  /** The text, or undefined when `sealed` was not made by this seal for this binding (or was altered). */
  open(sealed: string, binding: string): Promise<string | undefined>;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** `label` separates the keys of different uses; `version` prefixes every sealed text. */
export const createSeal = (
  secret: SecretSource,
  { label, version }: { label: string; version: string },
): Seal => {
  const keyOf = (line: string) => Buffer.from(hkdfSync('sha256', line, '', label, 32));
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
    async seal(text, binding) {
      const [key] = (await keys()) as [Buffer];
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(binding, 'utf8'));
      const sealed = Buffer.concat([iv, cipher.update(text, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return `${version}${sealed.toString('base64url')}`;
    },

    async open(sealed, binding) {
      const bytes = sealed.startsWith(version)
        ? Buffer.from(sealed.slice(version.length), 'base64url')
        : undefined;
      // base64url decoding skips what is not base64url: only a text that is its own encoding was sealed here.
      if (
        !bytes ||
        bytes.length <= IV_BYTES + TAG_BYTES ||
        bytes.toString('base64url') !== sealed.slice(version.length)
      ) {
        return undefined;
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
      return undefined;
    },
  };
};
