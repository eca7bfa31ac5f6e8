import { describe, expect, it } from 'vitest';
import { generateApiKey } from '../../../../lib/api-keys/key-format';
import { revokeLeakedKeys } from '../../../../lib/api-keys/leaks';
import { createApiKey } from '../../../../lib/api-keys/service';
import { createTestTenant, db, publish } from '../../../support/fixtures';
import { instrument } from '../../../support/instrumented-db';

/** What judging a report costs in DynamoDB calls, recorded on a client of its own. */
const match = (token: string) => ({
  token,
  type: 't',
  url: 'https://github.com/o/r/blob/s/f',
  source: 'content',
});

describe('keys found in public: what a report reads', () => {
  it('reads nothing for malformed tokens: a wrong shape or a wrong checksum is decided without the table', async () => {
    const probe = instrument(db);
    const key = generateApiKey();
    const tokens = [
      `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`,
      key.slice(0, -1),
      `${key}x`,
      key.replace('skm_', 'skx_'),
      'NMIfyYncKcRALEXAMPLE',
      '',
    ];
    const verdicts = await revokeLeakedKeys(probe.db, publish, tokens.map(match));
    expect(verdicts.map(({ label }) => label)).toEqual(tokens.map(() => 'false_positive'));
    expect(probe.calls).toHaveLength(0);
  });

  it('reads a well-formed token once, strongly consistent, by its hash; an unknown one writes nothing', async () => {
    const probe = instrument(db);
    const unknown = generateApiKey();
    const verdicts = await revokeLeakedKeys(probe.db, publish, [match(unknown), match(unknown)]);
    expect(verdicts.map(({ label }) => label)).toEqual(['false_positive', 'false_positive']);
    expect(probe.calls.map(({ command }) => command)).toEqual(['GetItemCommand']);
    expect(probe.calls[0]?.input.ConsistentRead).toBe(true);
  });

  it('revokes an active key with one read by hash and the revocation, and a revoked one with the read alone', async () => {
    const { tenant } = await createTestTenant({ kpiTypes: [] });
    const live = await createApiKey(db, { tenantId: tenant.id, name: 'leaked' });
    const probe = instrument(db);
    await revokeLeakedKeys(probe.db, publish, [match(live.key)]);
    expect(probe.calls.map(({ command }) => command)).toEqual([
      'GetItemCommand',
      'QueryCommand',
      'UpdateItemCommand',
    ]);
    probe.reset();
    const again = await revokeLeakedKeys(probe.db, publish, [match(live.key)]);
    expect(again[0]?.label).toBe('true_positive');
    expect(probe.calls.map(({ command }) => command)).toEqual(['GetItemCommand']);
  });
});
