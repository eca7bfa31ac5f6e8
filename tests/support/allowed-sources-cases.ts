import { describe, expect, it } from 'vitest';
import { handler as listHandler } from '../../functions/list-api-keys';
import { MAX_ALLOWED_SOURCES } from '../../lib/domain/api-key';
import { type InvokeResult, invoke } from './events';
import { bearer, createTestTenant, type TestTenant } from './fixtures';

/**
 * Sends the route's otherwise valid request for a key of `tenant` with `allowedSources` in its body
 * (a create, or a change of a key made for the call), and answers the route's answer and the key id.
 */
type Send = (tenant: TestTenant, allowedSources: unknown) => Promise<{ result: InvokeResult; id?: string }>;

const listed = async (tenant: TestTenant, id: string) =>
  (
    await invoke(listHandler, { path: '/api/api-keys', headers: bearer(tenant.users.VIEWER.token) })
  ).body.items.find((key: { id: string }) => key.id === id);

/**
 * The allowlist rule of every route that takes `allowedSources` (lib/api-keys/inputs.ts): 1 to 20
 * addresses or CIDR blocks, stored and answered in their normal form (a bare address is /32 or /128),
 * each once; null for any address; anything else is a 400 naming the offending item.
 */
export const describeAllowedSourcesInput = (route: string, send: Send) =>
  describe(`${route}: allowedSources`, () => {
    let tenant: TestTenant;
    const sent = async (allowedSources: unknown) => {
      tenant ??= await createTestTenant({ plan: 'enterprise', kpiTypes: [] });
      return send(tenant, allowedSources);
    };

    it('stores the list in its normal form, answers it and lists it: a bare address is /32 or /128', async () => {
      const { result, id } = await sent([
        ' 203.0.113.7 ',
        '198.51.100.77/24',
        '2001:DB8:0:0::1',
        '::ffff:10.0.0.1',
      ]);
      expect(result.status, JSON.stringify(result.body)).toBeLessThan(300);
      const normal = ['203.0.113.7/32', '198.51.100.0/24', '2001:db8::1/128', '10.0.0.1/32'];
      expect(result.body.allowedSources).toEqual(normal);
      expect((await listed(tenant, id ?? result.body.id)).allowedSources).toEqual(normal);
    });

    it(`null is any address; ${MAX_ALLOWED_SOURCES} blocks is the most`, async () => {
      const { result } = await sent(null);
      expect(result.status, JSON.stringify(result.body)).toBeLessThan(300);
      expect(result.body.allowedSources).toBeNull();
      const most = Array.from({ length: MAX_ALLOWED_SOURCES }, (_, i) => `192.0.2.${i}`);
      expect((await sent(most)).result.body.allowedSources).toHaveLength(MAX_ALLOWED_SOURCES);
    });

    it('400 naming the item: not an address, a repeat in another form, too many, none, not a list', async () => {
      const refused = async (allowedSources: unknown, path: string, message: RegExp) => {
        const { result } = await sent(allowedSources);
        expect(result.status, JSON.stringify(allowedSources)).toBe(400);
        expect(result.body.type).toMatch(/\/validation-failed$/);
        expect(result.body.errors).toContainEqual({ path, message: expect.stringMatching(message) });
      };
      await refused(['203.0.113.7', 'cron.example.com'], 'allowedSources[1]', /"cron\.example\.com"/);
      await refused(['10.0.0.1/33'], 'allowedSources[0]', /IPv4 or IPv6 address or CIDR block/);
      await refused(['fe80::1%eth0'], 'allowedSources[0]', /IPv4 or IPv6/);
      await refused(['203.0.113.0/24', '203.0.113.9/24'], 'allowedSources[1]', /repeats allowedSources\[0\]/);
      await refused(
        Array.from({ length: MAX_ALLOWED_SOURCES + 1 }, (_, i) => `192.0.2.${i}`),
        'allowedSources',
        /at most 20/,
      );
      await refused([], 'allowedSources', /send null for any address/);
      await refused('203.0.113.7', 'allowedSources', /./);
      await refused([7], 'allowedSources[0]', /must be a string/);
    });
  });
