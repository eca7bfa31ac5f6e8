/**
 * `npm run smoke -- --url <ApiUrl> [--key <API key of a test tenant>]`: what a deployed stage must
 * answer, right after a deploy (docs/operations.md, "What only AWS shows"). It reads and pushes
 * nothing a tenant would see: the health, the document, API Gateway's own answers, the push
 * authorizer's refusal and, with a key, the key check (no measurement is written).
 *
 * Each check says whether it means anything off AWS: run against `npm start`, the checks marked
 * `awsOnly` are reported as skipped (serverless-offline emulates neither usage plans nor API
 * Gateway's headers).
 */
import { parseArgs } from 'node:util';

export interface SmokeCheck {
  name: string;
  /** Only API Gateway and Lambda on AWS answer this way; skipped against the local stack. */
  awsOnly: boolean;
  run: (context: SmokeContext) => Promise<string | undefined>;
}

export interface SmokeContext {
  /** The stack output ApiUrl, e.g. `https://<id>.execute-api.eu-central-1.amazonaws.com/prod/api`. */
  url: string;
  key?: string;
}

export interface SmokeResult {
  name: string;
  outcome: 'passed' | 'failed' | 'skipped';
  detail?: string;
}

const get = (url: string, init: RequestInit = {}) =>
  fetch(url, { signal: AbortSignal.timeout(30_000), ...init });

const problemOf = async (response: Response) => {
  const type = response.headers.get('content-type') ?? '';
  if (!type.startsWith('application/problem+json')) return `answered ${type || 'no Content-Type'}`;
  const body = (await response.json()) as { status?: number };
  return body.status === response.status ? undefined : `problem status ${body.status} ≠ ${response.status}`;
};

const expectStatus = (response: Response, status: number) =>
  response.status === status ? undefined : `answered ${response.status}, expected ${status}`;

export const CHECKS: SmokeCheck[] = [
  {
    name: 'GET /health answers 200 (the function reads the table)',
    awsOnly: false,
    run: async ({ url }) => expectStatus(await get(`${url}/health`), 200),
  },
  {
    name: 'GET /openapi.json answers the document',
    awsOnly: false,
    run: async ({ url }) => {
      const response = await get(`${url}/openapi.json`);
      if (response.status !== 200) return expectStatus(response, 200);
      const document = (await response.json()) as { openapi?: string };
      return document.openapi?.startsWith('3.') ? undefined : 'not an OpenAPI 3 document';
    },
  },
  {
    name: 'an unknown route is a 404 problem document (a gateway response)',
    awsOnly: false,
    run: async ({ url }) => {
      const response = await get(`${url}/no-such-route-${Date.now()}`);
      return expectStatus(response, 404) ?? (await problemOf(response));
    },
  },
  {
    name: 'a push without a key is a 401 problem document (the authorizer guards it)',
    awsOnly: false,
    run: async ({ url }) => {
      const response = await get(`${url}/integrations/push/key`);
      return expectStatus(response, 401) ?? (await problemOf(response));
    },
  },
  {
    name: 'a push with a malformed key is refused (401) before any function runs',
    awsOnly: false,
    run: async ({ url }) => {
      const response = await get(`${url}/integrations/push/key`, {
        headers: { 'x-api-key': 'skm_not-a-key' },
      });
      return expectStatus(response, 401) ?? (await problemOf(response));
    },
  },
  {
    name: 'answers come from API Gateway (x-amzn-RequestId) with the stage’s request id in X-Request-Id',
    awsOnly: true,
    run: async ({ url }) => {
      const response = await get(`${url}/health`);
      const gateway = response.headers.get('x-amzn-requestid');
      if (!gateway) return 'no x-amzn-RequestId header: not API Gateway';
      return response.headers.get('x-request-id') ? undefined : 'no X-Request-Id header';
    },
  },
  {
    name: 'with --key: the key check answers 200 with RateLimit headers (authorizer, usage plan, handler)',
    awsOnly: false,
    run: async ({ url, key }) => {
      if (!key) return undefined;
      const response = await get(`${url}/integrations/push/key`, { headers: { 'x-api-key': key } });
      if (response.status !== 200) return expectStatus(response, 200);
      return response.headers.get('ratelimit-limit') ? undefined : 'no RateLimit-Limit header';
    },
  },
];

/** Runs every check once, in order; `local`: the local stack, where the AWS-only checks are skipped. */
export const runSmoke = async (context: SmokeContext, local: boolean): Promise<SmokeResult[]> => {
  const results: SmokeResult[] = [];
  for (const check of CHECKS) {
    if (check.awsOnly && local) {
      results.push({ name: check.name, outcome: 'skipped', detail: 'only API Gateway answers this way' });
      continue;
    }
    try {
      const failure = await check.run(context);
      results.push({ name: check.name, outcome: failure ? 'failed' : 'passed', detail: failure });
    } catch (error) {
      results.push({ name: check.name, outcome: 'failed', detail: (error as Error).message });
    }
  }
  return results;
};

const main = async () => {
  const { values } = parseArgs({
    options: { url: { type: 'string' }, key: { type: 'string' }, local: { type: 'boolean', default: false } },
  });
  if (!values.url) {
    console.error('Usage: npm run smoke -- --url <ApiUrl> [--key <API key of a test tenant>] [--local]');
    process.exit(2);
  }
  const url = values.url.replace(/\/+$/, '');
  const results = await runSmoke({ url, key: values.key }, values.local ?? false);
  for (const { name, outcome, detail } of results) {
    console.log(
      `${outcome === 'passed' ? 'ok  ' : outcome === 'skipped' ? 'skip' : 'FAIL'} ${name}${detail ? `: ${detail}` : ''}`,
    );
  }
  const failed = results.filter((r) => r.outcome === 'failed').length;
  console.log(`${results.length - failed} of ${results.length} checks did not fail.`);
  process.exit(failed > 0 ? 1 : 0);
};

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
