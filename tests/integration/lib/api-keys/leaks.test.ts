import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey } from '../../../../lib/api-keys/key-format';
import { revokeLeakedKeys } from '../../../../lib/api-keys/leaks';
import { createApiKey, revokeApiKey } from '../../../../lib/api-keys/service';
import { getApiKeyByHash } from '../../../../lib/db/api-keys';
import { keys } from '../../../../lib/db/keys';
import { throttling } from '../../../support/faults';
import { createTestTenant, db, publish } from '../../../support/fixtures';
import { instrument, overtaken } from '../../../support/instrumented-db';
import { captureOutput } from '../../../support/output';

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

  it('revokes an active key with one read by hash and the revocation with its event, and a revoked one with the read and its event alone', async () => {
    const { tenant } = await createTestTenant({ kpiTypes: [] });
    const live = await createApiKey(db, { tenantId: tenant.id, name: 'leaked' });
    const probe = instrument(db);
    await revokeLeakedKeys(probe.db, publish, [match(live.key)]);
    expect(probe.calls.map(({ command }) => command)).toEqual([
      'GetItemCommand',
      'QueryCommand',
      'TransactWriteItemsCommand',
    ]);
    probe.reset();
    const again = await revokeLeakedKeys(probe.db, publish, [match(live.key)]);
    expect(again[0]?.label).toBe('true_positive');
    expect(probe.calls.map(({ command }) => command)).toEqual(['GetItemCommand', 'PutItemCommand']);
  });
});

describe('keys found in public: what a revocation records, and when it cannot be made', () => {
  it('a key revoked before, or by another request meanwhile, gets the report recorded on its own', async () => {
    const { tenant } = await createTestTenant({ kpiTypes: [] });
    const before = await createApiKey(db, { tenantId: tenant.id, name: 'revoked before' });
    await revokeApiKey(db, tenant.id, before.id, undefined, publish);
    const meanwhile = await createApiKey(db, { tenantId: tenant.id, name: 'revoked meanwhile' });
    const racing = overtaken(db, 'TransactWriteItemsCommand', () =>
      revokeApiKey(db, tenant.id, meanwhile.id, undefined, publish),
    );
    for (const key of [before, meanwhile]) {
      const { result, lines } = await captureOutput(() =>
        revokeLeakedKeys(racing.db, publish, [match(key.key)]),
      );
      expect(result.map(({ label }) => label)).toEqual(['true_positive']);
      expect(lines.filter((line) => line.audit === 'api_key.leaked')).toEqual([
        expect.objectContaining({
          tenantId: tenant.id,
          actorType: 'github_secret_scanning',
          keyId: key.id,
          keyPrefix: key.prefix,
          name: key.name,
          url: 'https://github.com/o/r/blob/s/f',
          githubSource: 'content',
          revoked: false,
        }),
      ]);
    }
  });

  it('stores the first 512 characters of a long URL with the revocation, its event and its audit line', async () => {
    const { tenant } = await createTestTenant({ kpiTypes: [] });
    const live = await createApiKey(db, { tenantId: tenant.id, name: 'leaked' });
    const url = `https://github.com/o/r/blob/s/${'a'.repeat(600)}`;
    const { lines } = await captureOutput(() => revokeLeakedKeys(db, publish, [{ ...match(live.key), url }]));
    const stored = await getApiKeyByHash(db, hashApiKey(live.key));
    expect(stored?.revokedBy).toEqual({ type: 'secret-scanning', source: 'github', url: url.slice(0, 512) });
    expect(lines.filter((line) => line.audit === 'api_key.leaked')).toEqual([
      expect.objectContaining({ keyId: live.id, url: url.slice(0, 512), revoked: true }),
    ]);
  });

  it('judges each token of a report larger than one batch of reads once', async () => {
    const { tenant } = await createTestTenant({ kpiTypes: [] });
    const live = await createApiKey(db, { tenantId: tenant.id, name: 'leaked' });
    const unknown = Array.from({ length: 11 }, () => generateApiKey());
    const { result, lines } = await captureOutput(() =>
      revokeLeakedKeys(db, publish, [...unknown, live.key].map(match)),
    );
    expect(result.map(({ label }) => label)).toEqual([
      ...unknown.map(() => 'false_positive'),
      'true_positive',
    ]);
    expect(lines.filter((line) => line.audit === 'api_key.leaked')).toEqual([
      expect.objectContaining({ keyId: live.id, revoked: true }),
    ]);
  });

  it('a key the tenant index does not show yet is left as it is: 503 with Retry-After, and GitHub reports again', async () => {
    const { tenant } = await createTestTenant({ kpiTypes: [] });
    const live = await createApiKey(db, { tenantId: tenant.id, name: 'made a moment ago' });
    await db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: keys.apiKey(hashApiKey(live.key)),
        UpdateExpression: 'REMOVE gsi1pk, gsi1sk',
      }),
    );
    await expect(revokeLeakedKeys(db, publish, [match(live.key)])).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      message: 'Retry the report.',
      headers: { 'Retry-After': '1' },
    });
    expect((await getApiKeyByHash(db, hashApiKey(live.key)))?.revokedAt).toBeNull();
  });

  it('any other failure of the revocation reaches the caller as it is', async () => {
    const { tenant } = await createTestTenant({ kpiTypes: [] });
    const live = await createApiKey(db, { tenantId: tenant.id, name: 'leaked' });
    const probe = instrument(db, ({ name }) => {
      if (name === 'TransactWriteItemsCommand') throw throttling();
      return undefined;
    });
    await expect(revokeLeakedKeys(probe.db, publish, [match(live.key)])).rejects.toMatchObject({
      name: 'ThrottlingException',
    });
  });
});
