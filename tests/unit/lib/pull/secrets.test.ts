import { describe, expect, it } from 'vitest';
import { createSeal } from '../../../../lib/crypto/seal';
import {
  createPullSecretSeal,
  destinationChange,
  openSecrets,
  sealSecrets,
} from '../../../../lib/pull/secrets';

/** An integration's credentials, sealed for it alone and for where they go (lib/pull/secrets.ts). */
const KEY = 'a-secrets-key-of-this-test-only-0123456789';
const seal = createPullSecretSeal(KEY);
const bearer = { type: 'bearer' as const, token: { set: true as const } };
const integration = { tenantId: 't1', id: 'i1', url: 'https://billing.example.com/mrr', auth: bearer };
const oauth = (tokenUrl: string) => ({
  type: 'oauth2_client_credentials' as const,
  tokenUrl,
  clientId: 'c',
  clientSecret: { set: true as const },
  scope: null,
});
const header = (name: string) => ({ type: 'header' as const, name, value: { set: true as const } });

describe('sealed credentials', () => {
  it('open for the integration they were sealed for, and for no other of any tenant', async () => {
    const sealed = await sealSecrets(seal, integration, { token: 'tok-1' });
    expect(sealed).toMatch(/^p2\./);
    expect(await openSecrets(seal, integration, sealed)).toEqual({ token: 'tok-1' });
    expect(await openSecrets(seal, { ...integration, id: 'i2' }, sealed)).toBeUndefined();
    expect(await openSecrets(seal, { ...integration, tenantId: 't2' }, sealed)).toBeUndefined();
  });

  it('are nothing stored when there are none (auth none), and open as none', async () => {
    expect(await sealSecrets(seal, integration, {})).toBeNull();
    expect(await openSecrets(seal, integration, null)).toEqual({});
  });

  it('open for the origin they were given for only: another URL origin, token URL origin or header name opens nothing', async () => {
    const sealed = await sealSecrets(seal, integration, { token: 'tok-1' });
    // Another path or query of the same origin is the same destination.
    const samePlace = { ...integration, url: 'https://billing.example.com/other?x=1' };
    expect(await openSecrets(seal, samePlace, sealed)).toEqual({ token: 'tok-1' });
    for (const url of [
      'https://elsewhere.example.com/mrr',
      'http://billing.example.com/mrr',
      'https://billing.example.com:8443/mrr',
      'https://billing.example.com.evil.example/mrr',
    ]) {
      expect(await openSecrets(seal, { ...integration, url }, sealed), url).toBeUndefined();
    }

    const withOauth = { ...integration, auth: oauth('https://login.example.com/token') };
    const client = await sealSecrets(seal, withOauth, { clientSecret: 'cs' });
    expect(await openSecrets(seal, withOauth, client)).toEqual({ clientSecret: 'cs' });
    const movedToken = { ...withOauth, auth: oauth('https://attacker.example/token') };
    expect(await openSecrets(seal, movedToken, client)).toBeUndefined();

    const withHeader = { ...integration, auth: header('X-API-Key') };
    const value = await sealSecrets(seal, withHeader, { value: 'hv' });
    // Header names are caseless.
    expect(await openSecrets(seal, { ...withHeader, auth: header('x-api-key') }, value)).toEqual({
      value: 'hv',
    });
    expect(
      await openSecrets(seal, { ...withHeader, auth: header('X-Forwarded-For') }, value),
    ).toBeUndefined();
  });

  it('sealed before the destination was bound (p1.), still open for their tenant and integration only', async () => {
    // As the service sealed them before: the same key and label, bound to the tenant and integration.
    const former = createSeal(KEY, { label: 'strategy-service pull credentials v1', version: 'p1.' });
    const sealed = await former.seal(JSON.stringify({ token: 'old' }), 'pull-credentials:t1:i1');
    expect(await openSecrets(seal, integration, sealed)).toEqual({ token: 'old' });
    expect(await openSecrets(seal, { ...integration, id: 'i2' }, sealed)).toBeUndefined();
    // A current text is never read as a former one, nor a former one as a current one.
    const current = await sealSecrets(seal, integration, { token: 'new' });
    expect(await former.open(current as string, 'pull-credentials:t1:i1')).toBeUndefined();
    expect(await seal.current.open(sealed, 'pull-credentials:t1:i1')).toBeUndefined();
  });
});

describe('a change of destination', () => {
  const at = (url: string, auth: { type: string; tokenUrl?: string; name?: string } = bearer) => ({
    url,
    auth,
  });
  it('is named by the field that changed: the URL’s origin, the token URL’s origin, the header name', () => {
    const base = 'https://a.example.com/x';
    expect(destinationChange(at(base), at('https://a.example.com/y?z=1'))).toBeNull();
    expect(destinationChange(at(base), at('https://b.example.com/x'))).toBe('the origin of url');
    expect(
      destinationChange(
        at(base, oauth('https://t.example.com/a')),
        at(base, oauth('https://t.example.com/b')),
      ),
    ).toBeNull();
    expect(
      destinationChange(
        at(base, oauth('https://t.example.com/a')),
        at(base, oauth('https://u.example.com/a')),
      ),
    ).toBe('the origin of auth.tokenUrl');
    expect(destinationChange(at(base, header('X-Key')), at(base, header('x-key')))).toBeNull();
    expect(destinationChange(at(base, header('X-Key')), at(base, header('X-Other')))).toBe('auth.name');
  });
});
