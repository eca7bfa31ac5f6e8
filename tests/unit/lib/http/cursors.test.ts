import { describe, expect, it } from 'vitest';
import { createCursorSeal, cursorBinding } from '../../../../lib/http/cursors';

const KEY_A = 'a'.repeat(40);
const KEY_B = 'b'.repeat(40);
const CURSOR = Buffer.from(JSON.stringify({ pk: 'APIKEY#0123abcd', sk: 'APIKEY' })).toString('base64url');

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: { code?: string; errors?: unknown }) => ({ code: error.code, errors: error.errors }),
  );
const INVALID = { code: 'VALIDATION_FAILED', errors: [{ path: 'cursor', message: 'Invalid cursor' }] };

describe('sealed cursors (lib/http/cursors.ts)', () => {
  it('opens what it sealed, for the same binding, and each seal differs', async () => {
    const seal = createCursorSeal(KEY_A);
    const [one, two] = [await seal.seal(CURSOR, 'list|t1'), await seal.seal(CURSOR, 'list|t1')];
    expect(one).not.toBe(two);
    expect(one).toMatch(/^c1\.[\w-]+$/);
    expect(await seal.open(one, 'list|t1')).toBe(CURSOR);
    expect(await seal.open(two, 'list|t1')).toBe(CURSOR);
  });

  it('opens a cursor sealed by an earlier release with the same key: a client paging over a deploy goes on', async () => {
    const sealed =
      'c1.oOXmZRQG0DGiofEZOcAnDjG8iWeKSpQanLS1p_Cbc_xj83Lis0jPhiEmWbxARdqraBDUPQ2VUGMmqmXb-Z50chKtqj_K89Trn6Ayrcijvw';
    expect(await createCursorSeal(KEY_A).open(sealed, 'list|t1')).toBe(CURSOR);
  });

  it('hides the storage cursor: neither it nor what it encodes is in the sealed text', async () => {
    const sealed = await createCursorSeal(KEY_A).seal(CURSOR, 'b');
    const bytes = Buffer.from(sealed.slice(3), 'base64url').toString('latin1');
    expect(sealed).not.toContain(CURSOR.slice(0, 12));
    expect(bytes).not.toContain('APIKEY');
  });

  it('refuses another binding, an altered byte, a cut, another key, and what is not a sealed cursor', async () => {
    const seal = createCursorSeal(KEY_A);
    const sealed = await seal.seal(CURSOR, 'list|t1');
    const bytes = Buffer.from(sealed.slice(3), 'base64url');
    const altered = Buffer.from(bytes);
    altered[20] = (altered[20] as number) ^ 1;
    const cases = [
      seal.open(sealed, 'list|t2'),
      seal.open(`c1.${altered.toString('base64url')}`, 'list|t1'),
      seal.open(sealed.slice(0, -4), 'list|t1'),
      seal.open(`${sealed}==`, 'list|t1'),
      createCursorSeal(KEY_B).open(sealed, 'list|t1'),
      seal.open(CURSOR, 'list|t1'),
      seal.open('c1.', 'list|t1'),
      seal.open(`c1.${Buffer.alloc(28).toString('base64url')}`, 'list|t1'),
      seal.open(`c2.${sealed.slice(3)}`, 'list|t1'),
    ];
    for (const outcome of cases) expect(await refusal(outcome)).toEqual(INVALID);
  });

  it('keeps working across a rotation of the JWT key: the first line seals, every line opens', async () => {
    const before = await createCursorSeal(KEY_A).seal(CURSOR, 'b');
    const rotating = createCursorSeal(async () => `${KEY_B}\n${KEY_A}\n`);
    expect(await rotating.open(before, 'b')).toBe(CURSOR);
    const after = await rotating.seal(CURSOR, 'b');
    expect(await createCursorSeal(KEY_B).open(after, 'b')).toBe(CURSOR);
    expect(await refusal(createCursorSeal(KEY_A).open(after, 'b'))).toEqual(INVALID);
  });

  it('never seals with the JWT key itself: the key is derived under a label of its own', async () => {
    // A cursor sealed with the raw key text as AES key would open with it; the derived key does not.
    const { createDecipheriv } = await import('node:crypto');
    const sealed = Buffer.from((await createCursorSeal(KEY_A).seal(CURSOR, 'b')).slice(3), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', Buffer.from(KEY_A.slice(0, 32)), sealed.subarray(0, 12));
    decipher.setAAD(Buffer.from('b'));
    decipher.setAuthTag(sealed.subarray(sealed.length - 16));
    decipher.update(sealed.subarray(12, sealed.length - 16));
    expect(() => decipher.final()).toThrow();
  });
});

describe('what a cursor is bound to', () => {
  it('differs with the operation, the tenant and the path parameters; no parameters is null', () => {
    const base = cursorBinding('listKpiMeasurements', 't1', { kpiId: 'k1' });
    expect(base).toBe('["listKpiMeasurements","t1",{"kpiId":"k1"}]');
    expect(cursorBinding('listKpiMeasurements', 't1', { kpiId: 'k2' })).not.toBe(base);
    expect(cursorBinding('listKpiMeasurements', 't2', { kpiId: 'k1' })).not.toBe(base);
    expect(cursorBinding('listApiKeys', 't1', undefined)).toBe('["listApiKeys","t1",null]');
  });
});
