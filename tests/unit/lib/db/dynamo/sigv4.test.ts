import { Hash } from '@smithy/core/serde';
import { SignatureV4 } from '@smithy/signature-v4';
import { describe, expect, it } from 'vitest';
import { type Credentials, signRequest } from '../../../../../lib/db/dynamo/sigv4';

/**
 * The oracle is the AWS SDK's own signer (`@smithy/signature-v4`, with the SDK's Node hash): for
 * every generated request, its Authorization header must equal ours byte for byte. `applyChecksum:
 * false` because DynamoDB does not need `x-amz-content-sha256` and our client does not send it.
 */
const oracleSign = async (
  request: { path: string; headers: Record<string, string>; body: string | Uint8Array },
  credentials: Credentials,
  region: string,
  date: Date,
) => {
  const signer = new SignatureV4({
    credentials,
    region,
    service: 'dynamodb',
    sha256: Hash.bind(null, 'sha256'),
    applyChecksum: false,
  });
  const signed = await signer.sign(
    {
      method: 'POST',
      protocol: 'https:',
      hostname: request.headers.host ?? '',
      path: request.path,
      query: {},
      headers: { ...request.headers },
      body: request.body,
    },
    { signingDate: date },
  );
  return signed.headers as Record<string, string>;
};

/** mulberry32: a seeded generator, so a failure names the seed that reproduces it. */
const generator = (seed: number) => {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (max: number) => Math.floor(next() * max);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  const text = (alphabet: string, min: number, max: number) =>
    Array.from({ length: min + int(max - min + 1) }, () => alphabet[int(alphabet.length)]).join('');
  return { next, int, pick, text };
};

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const NAME = 'abcdefghijklmnopqrstuvwxyz0123456789-';
// Printable ASCII with runs of spaces and tabs, which canonicalisation collapses.
const VALUE = 'abcXYZ019 ;:,=/+-_."()\t  ';
const BODY = 'abc{}[]":,0123456789 éü€😀\n\t\\';
const REGIONS = ['eu-central-1', 'us-east-1', 'ap-southeast-2', 'local', 'cn-north-1'];
// Names the signer must leave out (or treats specially), mixed into the random headers.
const SPECIAL = [
  'user-agent',
  'x-amzn-trace-id',
  'proxy-authorization',
  'sec-fetch-mode',
  'connection',
  'date',
];

const randomCredentials = (g: ReturnType<typeof generator>): Credentials => ({
  accessKeyId: `AKIA${g.text(UPPER, 16, 16)}`,
  secretAccessKey: g.text(BASE64, 40, 40),
  ...(g.next() < 0.5 ? { sessionToken: g.text(BASE64, 100, 600) } : {}),
});

const randomRequest = (g: ReturnType<typeof generator>) => {
  const headers: Record<string, string> = {
    host: g.pick(['dynamodb.eu-central-1.amazonaws.com', '127.0.0.1:8000', 'localhost:4100']),
    'content-type': 'application/x-amz-json-1.0',
    'x-amz-target': `DynamoDB_20120810.${g.pick(['GetItem', 'PutItem', 'Query', 'TransactWriteItems'])}`,
  };
  const extra = g.int(6);
  for (let i = 0; i < extra; i++) {
    const name = g.next() < 0.3 ? g.pick(SPECIAL) : `x-${g.text(NAME, 1, 20)}`;
    // Mixed case on the wire; canonical form is lower case.
    const cased = g.next() < 0.3 ? name.toUpperCase() : name;
    if (Object.keys(headers).some((existing) => existing.toLowerCase() === name)) continue;
    headers[cased] = g.text(VALUE, 0, 40);
  }
  const body =
    g.next() < 0.2 ? Uint8Array.from({ length: g.int(300) }, () => g.int(256)) : g.text(BODY, 0, 400);
  if (g.next() < 0.7) headers['content-length'] = String(Buffer.byteLength(body));
  const path =
    g.next() < 0.8
      ? '/'
      : `/${Array.from({ length: 1 + g.int(4) }, () => g.pick(['a', 'b c', '.', '..', 'ü', 'x*y', "it's", ''])).join('/')}${g.next() < 0.5 ? '/' : ''}`;
  // Any instant between 1990 and 2100, to the millisecond.
  const date = new Date(631152000000 + Math.floor(g.next() * 3_500_000_000_000));
  return { path, headers, body, date };
};

describe('SigV4 signer (oracle: @smithy/signature-v4)', () => {
  it('gives the SDK signer’s Authorization header for 500 generated requests', async () => {
    const seed = 20260116;
    const g = generator(seed);
    // A few credentials objects reused across days, regions and requests, so the per-credentials
    // signing-key cache is hit, missed and cleared along the way.
    const pool = Array.from({ length: 4 }, () => randomCredentials(g));
    for (let i = 0; i < 500; i++) {
      const credentials = g.pick(pool);
      const region = g.pick(REGIONS);
      const { path, headers, body, date } = randomRequest(g);
      const ours = signRequest(
        { method: 'POST', path, headers, body },
        { credentials, region, service: 'dynamodb', date },
      );
      const sdk = await oracleSign({ path, headers, body }, credentials, region, date);
      const context = `seed ${seed}, request ${i}`;
      expect(ours.authorization, context).toBe(sdk.authorization);
      expect(ours['x-amz-date'], context).toBe(sdk['x-amz-date']);
      expect(ours['x-amz-security-token'], context).toBe(sdk['x-amz-security-token']);
    }
  });

  it('signs the session token and never the date header or the user agent', () => {
    const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'token' };
    const headers = signRequest(
      {
        method: 'POST',
        path: '/',
        headers: { host: 'example.com', date: 'Mon, 01 Jan 2024 00:00:00 GMT', 'user-agent': 'x' },
        body: '{}',
      },
      { credentials, region: 'eu-central-1', service: 'dynamodb', date: new Date('2024-01-01T00:00:00Z') },
    );
    expect(headers['x-amz-security-token']).toBe('token');
    expect(headers.date).toBeUndefined();
    expect(headers.authorization).toContain('SignedHeaders=host;x-amz-date;x-amz-security-token,');
    expect(headers.authorization).toContain(
      'Credential=AKIDEXAMPLE/20240101/eu-central-1/dynamodb/aws4_request',
    );
  });

  it('gives a different signature for a different secret, body or time', () => {
    const sign = (secretAccessKey: string, body: string, date: Date) =>
      signRequest(
        { method: 'POST', path: '/', headers: { host: 'example.com' }, body },
        {
          credentials: { accessKeyId: 'AKID', secretAccessKey },
          region: 'eu-central-1',
          service: 'dynamodb',
          date,
        },
      ).authorization;
    const date = new Date('2026-01-16T09:30:00Z');
    const base = sign('a', '{}', date);
    expect(sign('b', '{}', date)).not.toBe(base);
    expect(sign('a', '{ }', date)).not.toBe(base);
    expect(sign('a', '{}', new Date(date.getTime() + 1000))).not.toBe(base);
    expect(sign('a', '{}', date)).toBe(base);
  });
});
