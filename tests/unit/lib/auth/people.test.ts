import { describe, expect, it } from 'vitest';
import {
  generateLinkToken,
  hashLinkToken,
  LINK_TOKEN_PATTERN,
  LINK_VALID_SECONDS,
  linkRefusal,
  linkUrl,
} from '../../../../lib/auth/people';
import { newUserLink } from '../../../../lib/db/user-links';
import type { User } from '../../../../lib/domain/user';
import { requestOrigin } from '../../../../lib/http/page-origin';

const NOW = Date.parse('2026-09-01T06:00:00.000Z');
const link = newUserLink(
  { tokenHash: 'h', tenantId: 't', userId: 'u', purpose: 'invitation' },
  LINK_VALID_SECONDS,
  NOW,
);
const user = { disabled: false, linkHash: 'h' } as User;

describe('one-time links', () => {
  it('are 256 random bits behind a prefix, stored as their SHA-256 only', () => {
    const token = generateLinkToken(() => Buffer.alloc(32, 1));
    expect(token).toBe(`sul_${Buffer.alloc(32, 1).toString('base64url')}`);
    expect(token).toMatch(LINK_TOKEN_PATTERN);
    expect(generateLinkToken()).not.toBe(generateLinkToken());
    expect(hashLinkToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('are valid 7 days', () => {
    expect(LINK_VALID_SECONDS).toBe(604_800);
    expect(link.expiresAt).toBe('2026-09-08T06:00:00.000Z');
    expect(linkRefusal(link, user, Date.parse(link.expiresAt) - 1)).toBeUndefined();
    expect(linkRefusal(link, user, Date.parse(link.expiresAt))).toBe('expired');
  });

  it('name why they are refused', () => {
    expect(linkRefusal(undefined, undefined, NOW)).toBe('unknown');
    expect(linkRefusal(link, undefined, NOW)).toBe('unknown');
    expect(linkRefusal({ ...link, usedAt: new Date(NOW).toISOString() }, user, NOW)).toBe('used');
    expect(linkRefusal(link, { ...user, disabled: true }, NOW)).toBe('deactivated');
    expect(linkRefusal(link, { ...user, linkHash: 'other' }, NOW)).toBe('replaced');
    expect(linkRefusal(link, { ...user, linkHash: null }, NOW)).toBe('replaced');
  });

  it('carry the token in the fragment of the accept page, at the origin the caller used', () => {
    expect(linkUrl('https://x.example', 'sul_t')).toBe('https://x.example/platform/accept#token=sul_t');
    expect(requestOrigin({ headers: { Host: 'app.example', 'X-Forwarded-Proto': 'https' } })).toBe(
      'https://app.example',
    );
    expect(requestOrigin({ headers: { host: 'localhost:3000', 'x-forwarded-proto': 'http' } })).toBe(
      'http://localhost:3000',
    );
    expect(requestOrigin({ headers: { host: 'h.example' } })).toBe('https://h.example');
    // The local stack sends no scheme and serves http: its links must open as they are.
    expect(requestOrigin({ headers: { host: 'localhost:3000' } })).toBe('http://localhost:3000');
    expect(requestOrigin({ headers: { host: '127.0.0.1:6300' } })).toBe('http://127.0.0.1:6300');
    expect(requestOrigin({ headers: { host: 'localhost.example' } })).toBe('https://localhost.example');
  });
});
