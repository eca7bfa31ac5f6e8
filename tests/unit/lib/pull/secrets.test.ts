import { describe, expect, it } from 'vitest';
import { createPullSecretSeal, openSecrets, sealSecrets } from '../../../../lib/pull/secrets';

/** An integration's credentials, sealed for it alone (lib/pull/secrets.ts). */
const seal = createPullSecretSeal('a-secrets-key-of-this-test-only-0123456789');
const integration = { tenantId: 't1', id: 'i1' };

describe('sealed credentials', () => {
  it('open for the integration they were sealed for, and for no other of any tenant', async () => {
    const sealed = await sealSecrets(seal, integration, { token: 'tok-1' });
    expect(sealed).toMatch(/^p1\./);
    expect(await openSecrets(seal, integration, sealed)).toEqual({ token: 'tok-1' });
    expect(await openSecrets(seal, { tenantId: 't1', id: 'i2' }, sealed)).toBeUndefined();
    expect(await openSecrets(seal, { tenantId: 't2', id: 'i1' }, sealed)).toBeUndefined();
  });

  it('are nothing stored when there are none (auth none), and open as none', async () => {
    expect(await sealSecrets(seal, integration, {})).toBeNull();
    expect(await openSecrets(seal, integration, null)).toEqual({});
  });
});
