import * as z from 'zod/mini';
import { revokeLeakedKeys } from '../lib/api-keys/leaks';
import { defineDeployment } from '../lib/deployment';
import { defineRoute, reply } from '../lib/http/route';
import { db, githubSignedEndpoint, publish } from '../lib/runtime';

/**
 * The most matches one report may hold, and its largest body. GitHub batches the matches it finds;
 * a match is a token, its type, a URL and a source, a few hundred bytes, so 1,000 of them fit in
 * 1 MiB with room to spare. Bounds, so that one request cannot hold the function past its time.
 */
export const MAX_REPORT_MATCHES = 1000;
export const MAX_REPORT_BYTES = 1024 * 1024;

/** Objects are open: GitHub may add members to its payload, and a report must never fail for that. */
const matchSchema = z
  .object({
    token: z.string().check(z.maxLength(1000), z.describe('The string that matched the key format.')),
    type: z
      .string()
      .check(z.maxLength(200), z.describe('The token type name registered with GitHub, echoed back.')),
    url: z
      .string()
      .check(z.maxLength(8192), z.describe('The public URL where GitHub found it; may be empty.')),
    source: z.optional(
      z
        .string()
        .check(z.maxLength(200), z.describe('Where GitHub found it: `content`, `commit`, `gist`, `npm`, …')),
    ),
  })
  .check(
    z.meta({
      id: 'SecretScanningMatch',
      description: 'One match of the key format that GitHub secret scanning found in public.',
    }),
  );

const reportSchema = z.array(matchSchema).check(
  z.minLength(1, 'a report holds at least one match'),
  z.maxLength(MAX_REPORT_MATCHES, `a report holds at most ${MAX_REPORT_MATCHES} matches`),
  z.meta({
    id: 'SecretScanningReport',
    description: 'GitHub secret scanning’s report: the matches of the key format it found in public.',
  }),
);

const verdictsSchema = z
  .array(
    z.object({
      token_hash: z.string().check(z.describe('SHA-256 of the token, lowercase hex.')),
      token_type: z.string().check(z.describe('The `type` of the match.')),
      label: z
        .enum(['true_positive', 'false_positive'])
        .check(
          z.describe(
            '`true_positive`: a key of the service (active ones are now revoked); `false_positive`: not one.',
          ),
        ),
    }),
  )
  .check(
    z.meta({
      id: 'SecretScanningVerdicts',
      description: 'One verdict per match, in the report’s order (GitHub’s partner response format).',
    }),
  );

/** A well-formed key of no tenant; the response example's `token_hash` is its SHA-256. */
const exampleToken = 'skm_00ahvh5gV3PpZPWhSIvCbORvbQh0AfCOv';
const exampleUrl =
  'https://github.com/octocat/Hello-World/blob/12345600b9cbe38a219f39a9941c9319b600c002/.env';

/**
 * POST /secret-scanning/github: GitHub's secret scanning partner endpoint. GitHub signs each report
 * (lib/http/github-signature.ts); each match is judged and an active key among them revoked
 * (lib/api-keys/leaks.ts).
 */
export const route = defineRoute({
  operationId: 'reportLeakedKeys',
  method: 'post',
  path: '/secret-scanning/github',
  tag: 'Service',
  summary: 'GitHub secret scanning: report keys found in public',
  description: `Called by GitHub's secret scanning partner program, not by clients. The request must carry \`Github-Public-Key-Identifier\` and \`Github-Public-Key-Signature\`: an ECDSA P-256 SHA-256 signature (base64, ASN.1 DER) of the raw body by the key GitHub publishes under that identifier; anything else is 401 \`unauthenticated\`, with the same answer whatever was wrong. A token that is not a well-formed key (format and checksum) or not a key of the service is a \`false_positive\`; a key of the service is a \`true_positive\`, and if it is active it is revoked at once (recorded as revoked by \`secret-scanning\` with the URL). Sending the same report again changes nothing more and gets the same answer. At most ${MAX_REPORT_MATCHES} matches and ${MAX_REPORT_BYTES} bytes.`,
  auth: 'none',
  body: {
    schema: reportSchema,
    maxBytes: MAX_REPORT_BYTES,
    examples: {
      report: {
        summary: 'One match in a public file',
        value: [
          { token: exampleToken, type: 'strategy_service_api_key', url: exampleUrl, source: 'content' },
        ],
      },
    },
  },
  responses: {
    200: {
      description: 'The verdicts.',
      schema: verdictsSchema,
      example: [
        {
          token_hash: '11c6f4bca6bd586facda6f44b4491bc00460879849232591ba466e84efbe6d03',
          token_type: 'strategy_service_api_key',
          label: 'true_positive',
        },
      ],
    },
  },
  errors: ['UNAUTHENTICATED'],
  core: async ({ body, origin }) => reply(200, await revokeLeakedKeys(db, publish, body, { origin })),
});

/**
 * Each well-formed token by hash (Get); an active key's revocation: the key by id and the key it
 * replaced (Query on the index), their updates (Update); api_key.revoked to the tenant's webhooks.
 * No JWT key.
 */
export const deployment = defineDeployment({
  table: {
    GetItem: ['APIKEY#'],
    PutItem: ['AUDIT#'],
    UpdateItem: ['APIKEY#'],
  },
  indexes: ['gsi1'],
  publishesWebhookEvents: true,
});

export const handler = githubSignedEndpoint(route);
