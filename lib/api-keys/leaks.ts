import { getApiKeyByHash } from '../db/api-keys';
import { putAuditEvent } from '../db/audit-events';
import type { Database } from '../db/client';
import type { Actor } from '../domain/api-key';
import { auditEvent, NO_REQUEST, type RequestOrigin } from '../domain/audit-event';
import { AppError } from '../errors';
import { logAuditEvent } from '../logger';
import type { Publish } from '../webhooks/events';
import { hashApiKey, isWellFormedApiKey } from './key-format';
import { apiKeyStatus } from './rules';
import { auditContextOf, revokeApiKey } from './service';

/**
 * Keys found in public: GitHub's secret scanning reports every match of the key format it finds in
 * public code (docs/operations.md, "Secret scanning"). Each match is judged on its own:
 *
 * - a token that is not a well-formed key (shape and CRC32 checksum) is a false positive, decided
 *   without a database read: the checksum exists so that look-alikes cost nothing;
 * - a well-formed token is looked up by its hash (one strongly consistent read); an unknown one is a
 *   false positive;
 * - a key of ours is a true positive whatever its status (it is a real key that leaked); an active key
 *   is revoked through `revokeApiKey`, the one revocation of the service, and a revoked or expired one
 *   is left as it is. A report sent again therefore changes nothing more and gets the same labels.
 *
 * Every true positive is an `api_key.leaked` audit event of the key's tenant naming the key and the
 * public URL, never the token: the revocation's own record when this report revoked the key (written
 * with it, in one transaction), an event of its own when the key was revoked or expired already.
 */

/** One match of a report, as GitHub sends it. */
export interface LeakMatch {
  token: string;
  type: string;
  /** The public URL where it was found; may be empty. */
  url: string;
  source?: string | undefined;
}

export type LeakLabel = 'true_positive' | 'false_positive';

/** GitHub's partner response for one match: the token by its SHA-256, never the token itself. */
export interface LeakVerdict {
  token_hash: string;
  token_type: string;
  label: LeakLabel;
}

/**
 * The URL as stored with the key's revocation and in its audit event (and line), cut to this length:
 * the key item stays one read unit of a push (4 KB).
 */
const MAX_STORED_URL = 512;

/** Reads at a time: a large report stays within the function's time without a burst of reads. */
const CONCURRENCY = 10;

const judge = async (
  db: Database,
  publish: Publish,
  match: LeakMatch,
  now: number,
  origin: RequestOrigin,
): Promise<LeakLabel> => {
  if (!isWellFormedApiKey(match.token)) return 'false_positive';
  const key = await getApiKeyByHash(db, hashApiKey(match.token));
  if (!key) return 'false_positive';
  const url = match.url.slice(0, MAX_STORED_URL);
  const by: Actor = { type: 'secret-scanning', source: 'github', url };
  const record = { type: 'api_key.leaked' as const, details: { url, githubSource: match.source ?? null } };
  let recorded = false;
  if (apiKeyStatus(key, now) === 'active') {
    try {
      const revocation = await revokeApiKey(db, key.tenantId, key.id, by, publish, { origin, record });
      recorded = revocation.event !== undefined;
    } catch (error) {
      // The key exists (read by hash just now) but the tenant index does not show it yet: a key made
      // moments ago. GitHub delivers the report again; by then the index has it.
      // Stryker disable next-line LogicalOperator,ConditionalExpression: revokeApiKey's only refusal is NOT_FOUND; its other failures are no AppError
      if (error instanceof AppError && error.code === 'NOT_FOUND') {
        throw new AppError('SERVICE_UNAVAILABLE', 'Retry the report.', {
          headers: { 'Retry-After': '1' },
          cause: error,
        });
      }
      throw error;
    }
  }
  if (!recorded) {
    // Revoked or expired already (or by a concurrent request): the report changes nothing, and is
    // recorded on its own.
    const event = auditEvent(auditContextOf(by, origin), {
      type: record.type,
      tenantId: key.tenantId,
      target: { type: 'api_key', id: key.id },
      details: {
        keyPrefix: key.prefix,
        name: key.name,
        ...record.details,
        revoked: false,
        graceEndedOf: null,
      },
    });
    await putAuditEvent(db, event);
    logAuditEvent(event);
  }
  return 'true_positive';
};

/**
 * Judges each match of a report and revokes the active keys among them; the verdicts are in the
 * report's order. The same token twice in one report is judged once.
 */
export const revokeLeakedKeys = async (
  db: Database,
  /** Where each revocation's `api_key.revoked` goes, as for any other revocation. */
  publish: Publish,
  matches: readonly LeakMatch[],
  {
    now = Date.now(),
    origin = NO_REQUEST,
  }: {
    now?: number;
    /** The report's request (GitHub's), recorded with each event. */
    origin?: RequestOrigin;
  } = {},
): Promise<LeakVerdict[]> => {
  const labels = new Map<string, LeakLabel>();
  const unique = [...new Map(matches.map((match) => [match.token, match])).values()];
  // Stryker disable next-line EqualityOperator: one more turn would judge an empty batch
  for (let start = 0; start < unique.length; start += CONCURRENCY) {
    const batch = unique.slice(start, start + CONCURRENCY);
    const judged = await Promise.all(batch.map((match) => judge(db, publish, match, now, origin)));
    for (const [index, match] of batch.entries()) labels.set(match.token, judged[index] as LeakLabel);
  }
  return matches.map((match) => ({
    token_hash: hashApiKey(match.token),
    token_type: match.type,
    label: labels.get(match.token) as LeakLabel,
  }));
};
