import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokenCache, fetchSource, type Source } from '../../../../lib/pull/fetch';
import { egress } from '../../../../lib/runtime';
import { freePort } from '../../../../scripts/local/processes';
import { type PullSource, startPullSource } from '../../../support/pull-source';

/**
 * One fetch of a source through the service's egress, against a real HTTP source of the test: what a
 * failure is classed as and says, and the credentials a source receives when a secret is missing.
 */
let source: PullSource;
beforeAll(async () => {
  source = await startPullSource();
});
afterAll(() => source.close());

const deps = () => ({ egress, tokens: createTokenCache() });
const sourceAt = (url: string, auth: Source['auth'] = { type: 'none' }): Source => ({
  id: 'i1',
  url,
  headers: {},
  auth,
});

describe('a fetch that fails before an answer', () => {
  it('is a connection failure for an address the egress rules refuse, saying so', async () => {
    const result = await fetchSource(deps(), sourceAt('http://169.254.169.254/latest/meta-data'), {});
    expect(result).toMatchObject({ ok: false, errorClass: 'connection', error: 'refused by egress rules' });
  });

  it('is an auth failure when the token endpoint cannot be reached, naming the token request', async () => {
    source.answers['/value'] = { json: { value: 1 } };
    const closed = `http://127.0.0.1:${await freePort()}/token`;
    const result = await fetchSource(
      deps(),
      sourceAt(source.url('/value'), {
        type: 'oauth2_client_credentials',
        tokenUrl: closed,
        clientId: 'client',
        scope: null,
        clientSecret: { set: true },
      }),
      { clientSecret: 's' },
    );
    expect(result).toMatchObject({
      ok: false,
      errorClass: 'auth',
      error: 'the token request failed: the connection to the source failed',
    });
    expect(source.requestsTo('/value')).toEqual([]);
  });
});

describe('credentials whose secret is missing', () => {
  it('are sent empty, never as a placeholder: the source refuses them as it would a wrong one', async () => {
    source.answers['/auth'] = { json: { value: 1 } };
    const auths: Source['auth'][] = [
      { type: 'bearer', token: { set: true } },
      { type: 'header', name: 'X-Api-Token', value: { set: true } },
      { type: 'basic', username: 'user', password: { set: true } },
    ];
    for (const auth of auths) await fetchSource(deps(), sourceAt(source.url('/auth'), auth), {});
    const sent = source
      .requestsTo('/auth')
      .map(({ headers }) => [headers.authorization, headers['x-api-token']]);
    expect(sent).toEqual([
      ['Bearer', undefined], // `Bearer ` as sent: an HTTP server trims the trailing space
      [undefined, ''],
      [`Basic ${Buffer.from('user:').toString('base64')}`, undefined],
    ]);
  });
});
