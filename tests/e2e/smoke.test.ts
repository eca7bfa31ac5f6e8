import { describe, expect, it } from 'vitest';
import { CHECKS, runSmoke } from '../../scripts/smoke';
import { baseUrl, seed } from '../support/http';

/**
 * `npm run smoke` against the local stack: every check that means something off AWS passes, and the
 * checks only API Gateway can pass are skipped, not passed.
 */
describe('npm run smoke, against npm start', () => {
  it('passes every check that applies locally, with a seeded key, and skips the AWS-only ones', async () => {
    const key = seed().tenants[0]!.apiKeys.find((k) => k.status === 'active')!.key;
    const results = await runSmoke({ url: baseUrl(), key }, true);
    expect(results.filter((r) => r.outcome === 'failed')).toEqual([]);
    const skipped = results.filter((r) => r.outcome === 'skipped').map((r) => r.name);
    expect(skipped).toEqual(CHECKS.filter((c) => c.awsOnly).map((c) => c.name));
    expect(results.filter((r) => r.outcome === 'passed')).toHaveLength(CHECKS.length - skipped.length);
  });

  it('fails a check whose answer is wrong: the AWS-only header check against the local stack', async () => {
    const results = await runSmoke({ url: baseUrl() }, false);
    const gateway = results.find((r) => r.name.startsWith('answers come from API Gateway'))!;
    expect(gateway).toMatchObject({
      outcome: 'failed',
      detail: 'no x-amzn-RequestId header: not API Gateway',
    });
  });
});
