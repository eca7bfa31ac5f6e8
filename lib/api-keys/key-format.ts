import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * Raw API key: `skm_` + 27 base62 characters from 160 random bits + 6 base62 characters of CRC32.
 *
 * - The short fixed prefix lets secret scanners recognise the key and leaves 4 random characters in the
 *   8-character identification prefix (spec 2.7, 8).
 * - The checksum (as in GitHub's token format) rejects a mistyped or truncated key without a database
 *   read, and lets scanners tell real keys from look-alikes.
 * - Only SHA-256 of the whole key is stored (spec 2.7); a 160-bit random secret needs no slow hash.
 */
export const KEY_PREFIX = 'skm_';
export const RANDOM_BYTES = 20;
const RANDOM_LENGTH = 27; // ceil(160 / log2(62))
const CHECKSUM_LENGTH = 6; // 62^6 > 2^32
export const KEY_LENGTH = KEY_PREFIX.length + RANDOM_LENGTH + CHECKSUM_LENGTH;
export const IDENTIFICATION_PREFIX_LENGTH = 8;

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

const toBase62 = (value: bigint, length: number): string => {
  let out = '';
  let rest = value;
  while (rest > 0n) {
    out = ALPHABET[Number(rest % 62n)] + out;
    rest /= 62n;
  }
  return out.padStart(length, '0');
};

const checksum = (body: string): string => toBase62(BigInt(crc32(body)), CHECKSUM_LENGTH);

/** `random` is injectable for tests; production uses the CSPRNG. */
export const generateApiKey = (random: (size: number) => Buffer = randomBytes): string => {
  const body = KEY_PREFIX + toBase62(BigInt(`0x${random(RANDOM_BYTES).toString('hex')}`), RANDOM_LENGTH);
  return body + checksum(body);
};

const BODY = `${KEY_PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}`;
const SHAPE = new RegExp(`^${BODY}$`);

/**
 * The pattern secret scanners search text for (registered with GitHub's secret scanning partner
 * program, docs/operations.md): a key between word boundaries, so a longer run of the same
 * characters, or the prefix inside another word, is no match.
 */
export const SCANNER_PATTERN = `\\b${BODY}\\b`;

/** Shape and checksum only: a well-formed key may still be unknown, revoked or expired. */
export const isWellFormedApiKey = (key: string): boolean => {
  if (!SHAPE.test(key)) return false;
  const body = key.slice(0, -CHECKSUM_LENGTH);
  return checksum(body) === key.slice(-CHECKSUM_LENGTH);
};

// Stryker disable next-line StringLiteral: Hash#update reads a string as UTF-8 when no encoding is named
export const hashApiKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

export const identificationPrefix = (key: string): string => key.slice(0, IDENTIFICATION_PREFIX_LENGTH);
