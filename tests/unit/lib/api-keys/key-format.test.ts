import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  generateApiKey,
  hashApiKey,
  identificationPrefix,
  isWellFormedApiKey,
  KEY_LENGTH,
  KEY_PREFIX,
  RANDOM_BYTES,
} from '../../../../lib/api-keys/key-format';
import { apiKeyStatus } from '../../../../lib/api-keys/rules';

describe('API key format', () => {
  it('is skm_ + base62, fixed length, and passes its own checksum', () => {
    const key = generateApiKey();
    expect(KEY_PREFIX.length).toBeLessThanOrEqual(4);
    expect(key.startsWith(KEY_PREFIX)).toBe(true);
    expect(key).toHaveLength(KEY_LENGTH);
    expect(key).toMatch(/^skm_[0-9A-Za-z]+$/);
    expect(isWellFormedApiKey(key)).toBe(true);
  });

  it('draws at least 128 bits from the random source it is given', () => {
    let requested = 0;
    const key = generateApiKey((size) => {
      requested += size;
      return randomBytes(size);
    });
    expect(requested * 8).toBeGreaterThanOrEqual(128);
    expect(RANDOM_BYTES * 8).toBeGreaterThanOrEqual(128);
    expect(isWellFormedApiKey(key)).toBe(true);
  });

  it('different random bytes give different keys; the same bytes the same key', () => {
    const zeros = generateApiKey((size) => Buffer.alloc(size, 0));
    const ones = generateApiKey((size) => Buffer.alloc(size, 0xff));
    expect(zeros).not.toBe(ones);
    expect(generateApiKey((size) => Buffer.alloc(size, 0))).toBe(zeros);
    const many = new Set(Array.from({ length: 1000 }, () => generateApiKey()));
    expect(many.size).toBe(1000);
  });

  it('rejects a mistyped, truncated or foreign key by checksum and shape alone', () => {
    const key = generateApiKey();
    const last = key.at(-1) === 'a' ? 'b' : 'a';
    const typo = key.slice(0, 10) + (key[10] === 'x' ? 'y' : 'x') + key.slice(11);
    expect(isWellFormedApiKey(typo)).toBe(false);
    expect(isWellFormedApiKey(key.slice(0, -1))).toBe(false);
    expect(isWellFormedApiKey(key.slice(0, -1) + last)).toBe(false);
    expect(isWellFormedApiKey(`sk_${key.slice(4)}`)).toBe(false);
    expect(isWellFormedApiKey(`${key} `)).toBe(false);
  });

  it('rejects a key of the wrong shape even when its checksum is right', () => {
    // The checksum as the format defines it: CRC32 of the rest of the key, 6 base62 characters.
    const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    const withChecksum = (body: string) => {
      let value = crc32(body);
      let out = '';
      for (let i = 0; i < 6; i++, value = Math.floor(value / 62)) out = alphabet[value % 62] + out;
      return body + out;
    };
    const body = generateApiKey().slice(0, -6);
    expect(isWellFormedApiKey(withChecksum(body))).toBe(true);
    for (const shaped of [`${body}x`, body.slice(0, -1), `${body.slice(0, -1)}-`, `SKM_${body.slice(4)}`]) {
      expect(isWellFormedApiKey(withChecksum(shaped))).toBe(false);
    }
  });

  it('stores SHA-256 of the whole key and identifies it by its first 8 characters', () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toBe(createHash('sha256').update(key).digest('hex'));
    expect(hashApiKey(key)).not.toContain(key.slice(4, 12));
    expect(identificationPrefix(key)).toBe(key.slice(0, 8));
  });
});

describe('API key status (spec 3)', () => {
  const now = Date.parse('2026-06-01T00:00:00Z');
  it('is active without expiry or before it, expired at or after it, revoked once revoked', () => {
    expect(apiKeyStatus({ revokedAt: null, expiresAt: null }, now)).toBe('active');
    expect(apiKeyStatus({ revokedAt: null, expiresAt: '2026-06-01T00:00:01Z' }, now)).toBe('active');
    expect(apiKeyStatus({ revokedAt: null, expiresAt: '2026-06-01T00:00:00Z' }, now)).toBe('expired');
    expect(apiKeyStatus({ revokedAt: '2026-05-01T00:00:00Z', expiresAt: '2026-01-01T00:00:00Z' }, now)).toBe(
      'revoked',
    );
  });
});
