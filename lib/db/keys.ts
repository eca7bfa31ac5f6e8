import { createHash } from 'node:crypto';

/**
 * Every partition and sort key of the single table is built here, and nowhere else.
 *
 * | entity           | pk                  | sk                          | gsi1pk         | gsi1sk            |
 * |------------------|---------------------|-----------------------------|----------------|-------------------|
 * | tenant           | TENANT#<tid>        | TENANT                      | TENANTS        | TENANT#<tid>      |
 * | user             | TENANT#<tid>        | USER#<uid>                  |                |                   |
 * | e-mail → user    | EMAIL#<email>       | EMAIL                       |                |                   |
 * | user count       | TENANT#<tid>        | USERCOUNT                   |                |                   |
 * | one-time link    | USERLINK#<sha256>   | USERLINK                    |                |                   |
 * | strategic cycle  | TENANT#<tid>        | CYCLE#<cid>                 |                |                   |
 * | KPI count        | TENANT#<tid>        | KPICOUNT                    |                |                   |
 * | KPI              | KPI#<kid>           | KPI                         | TENANT#<tid>   | KPI#<state>#<cycle>#<kid> |
 * | measurement      | KPI#<kid>           | MEASUREMENT#<start>#<end>   |                |                   |
 * | API key          | APIKEY#<sha256>     | APIKEY                      | TENANT#<tid>   | APIKEY#<keyId>    |
 * | API key usage    | APIKEY#<sha256>     | USAGE#<yyyy-mm-dd>          |                |                   |
 * | API key slots    | TENANT#<tid>        | APIKEYSLOTS                 |                |                   |
 * | login attempts   | LOGIN#<email>       | FAILURES                    |                |                   |
 * |  … from a source | LOGIN#<email>       | SOURCE#<address>            |                |                   |
 * |  … new devices   | LOGIN#<email>       | NEWDEVICES                  |                |                   |
 * |  … of a device   | LOGIN#<email>       | DEVICE#<device token id>    |                |                   |
 * | … of a source    | LOGINSOURCE#<addr>  | FAILURES                    |                |                   |
 * | session          | SESSION#<sid>       | SESSION                     |                |                   |
 * | webhook endpoint | TENANT#<tid>        | WEBHOOK#<wid>               |                |                   |
 * | webhook count    | TENANT#<tid>        | WEBHOOKCOUNT                |                |                   |
 * | webhook tests    | TENANT#<tid>        | WEBHOOKTESTS                |                |                   |
 * | webhook delivery | WEBHOOK#<wid>       | DELIVERY#<did>              |                |                   |
 * | local queue msg  | QUEUE#<name>        | MESSAGE#<mid>               |                |                   |
 * | pull integration | TENANT#<tid>        | PULL#<iid>                  |                |                   |
 * | pull count       | TENANT#<tid>        | PULLCOUNT                   |                |                   |
 * | pull run         | PULL#<iid>          | RUN#<rid>                   |                |                   |
 * | pull usage day   | PULL#<iid>          | USAGE#<yyyy-mm-dd>          |                |                   |
 * | audit event      | AUDIT#<tid>         | EVENT#<at>#<eid>            |                |                   |
 * | health probe     | HEALTH              | HEALTH                      |                |                   |
 *
 * The second index, gsi2, is sparse: only what the scheduled alert check looks for is in it.
 *
 * | entity                   | gsi2pk                   | gsi2sk                        |
 * |--------------------------|--------------------------|-------------------------------|
 * | KPI with a cadence       | QUIET#<shard of kid>     | <dueAt>#<kid>                 |
 * | API key with an expiry   | KEYEXPIRY#<yyyy-mm-dd>   | <expiresAt>#<keyId>           |
 * | pull integration to run  | PULLDUE#<shard of iid>   | <dueAt>#<tid>#<iid>           |
 *
 * No gsi2 partition holds every item of the platform: the two due indexes are spread over
 * INDEX_SHARDS partitions by a hash of the id (which never changes, so a move of an entry is a change
 * of its sort key only), and the key buckets by day.
 *
 * A KPI is in gsi2 while its cadence is not `none`, sorted by when the alert check should look at it
 * next: a moment never later than the KPI would go quiet. A push does not move it (the push writes no
 * KPI item); the check reads the entries that are due (`gsi2sk <= now`, one range Query a shard), reads
 * each one's newest arrivals, and moves the entry to the moment the KPI goes quiet, or, once notified,
 * a cadence and grace later. A KPI that receives its pushes is read about once per cadence and grace,
 * not once per run. A key with an expiry is in the bucket of
 * its expiry's UTC day, sorted by the expiry: the check reads the buckets of the next days with a
 * range on the sort key, and a key's bucket is written once, when the key is created. A pull
 * integration that is not disabled is in its PULLDUE shard, sorted by when it is due: the scheduler
 * reads the due ones with one range Query a shard (`gsi2sk <= now`), however many integrations wait for
 * later; each run moves its entry to the next slot, and a disabled integration leaves the index.
 *
 * A KPI's entry in its tenant's index partition says, in this order, whether it is archived (`<state>`:
 * `LIVE` or `ARCHIVED`), its strategic cycle (`<cycle>`: `CYCLE#<cid>`, or `NOCYCLE`) and its id, so
 * that each list a tenant asks for is one key condition on that partition:
 * - the live KPIs (`GET /kpis`): `begins_with(gsi1sk, 'KPI#LIVE#')`;
 * - the live KPIs of a cycle (`?cycleId=`): `begins_with(gsi1sk, 'KPI#LIVE#CYCLE#<cid>#')`;
 * - the archived ones (`?archived=true`, with or without a cycle): the same under `KPI#ARCHIVED#`.
 * Live KPIs are listed by cycle (oldest cycle first, ids are UUIDv7), then those without one, each
 * group oldest first. `?type=` is a filter on these ranges with a read bound and a cursor
 * (lib/db/kpis.ts): a page reads at most that bound, whatever the tenant holds. Archiving a KPI or
 * moving it to another cycle rewrites its entry (one index write more), which only an ADMIN or EDITOR
 * does. The partition is the tenant's, so no value is shared beyond a tenant. A cycle item counts its
 * KPIs (`kpiCount`, written in the same transaction as each KPI that joins or leaves it), which is
 * what its deletion is conditioned on; the KPI count item holds the tenant's live KPIs to the plan's
 * maximum, like the pull count. KPIs stored with the former entry `KPI#<kid>` are rewritten by the
 * operator's `migrate-kpi-index` (scripts/admin.ts).
 *
 * KPIs are keyed by their globally unique id (not by tenant) so that a push, which knows only the
 * KPI ids and the API key, can read them in its first round trip; ownership is checked against
 * the item's `tenantId`. API keys are keyed by the SHA-256 of the raw key, so verifying a key is one
 * strongly consistent GetItem (a revocation is seen by the very next request); the index lists a
 * tenant's keys. A key's usage is one small item per UTC day (rate-limit counters, request counts by
 * outcome, `lastUsedAt`, the last source): what the push hot path writes. It is in no index, so those
 * writes cost one unit each and never touch gsi1; a day's items of a key are one Query. The slots item
 * holds the active key ids of a tenant on a plan with a key maximum, and a version.
 * The health probe item is never written: GET /health reads it to see that the table answers.
 * Login attempts are counted per e-mail and source address (what locks an attacker out), per source
 * address (one source guessing many e-mails) and per e-mail (a ceiling only a distributed attack
 * reaches); an e-mail's counters share its partition. A session is a refresh token's record, keyed
 * by its own id so that a refresh or a JWT request reads it by key, and expires with the token (`ttl`).
 * A tenant's webhook endpoints are in its partition: publishing an event reads them with one Query
 * (at most MAX_WEBHOOK_ENDPOINTS items), and the count item, written in the same transaction as an
 * endpoint, holds the tenant to that maximum under concurrency. An endpoint's deliveries share its
 * partition, keyed by their UUIDv7 id, so the delivery log is one Query, newest first; they expire
 * (`ttl`). The tenant's test deliveries are counted per minute on one item of its partition (a
 * fixed-window counter, lib/db/window-counters.ts), which holds them to their limit. The local queue (the local stage's substitute for SQS) keeps each queue's messages in one
 * partition; a drain reads it with one Query.
 * A tenant's pull integrations are in its partition, like its webhooks: a route reads one by (tenant,
 * id), so another tenant's id finds nothing, and the list is one Query; their count item, written in
 * the same transaction as an integration, holds the tenant to its plan's maximum under concurrency. An integration's runs and its
 * days of usage share a partition of their own, runs keyed by UUIDv7 (the run log is one Query, newest
 * first); both expire (`ttl`) after 90 days.
 * A tenant's users are in its partition (the people list is one Query); their count item, written in
 * the same transaction as an invitation, a deactivation and a reactivation, holds the tenant to its
 * plan's user maximum. A one-time link (an invitation or a password reset) is keyed by the SHA-256
 * of its token, like an API key, so accepting it is one strongly consistent GetItem by what the
 * person holds; it expires (`ttl`) some time after the link does, and is kept used until then, so that
 * a second use is told from an unknown token in the audit trail.
 * A tenant's audit events share a partition of their own, sorted by time (`at` as `toISOString` writes
 * it, then the event's UUIDv7 id, which makes the key unique): the audit log is one Query read
 * backwards (newest first), a range of time is a range of sort keys, and the other filters (type,
 * actor, target) are applied to that range. They are in no index, so an event costs the write of its
 * item only, and expire (`ttl`) after the retention (400 days unless the stage says otherwise). Apart
 * from the tenant's partition, so that a function's role names exactly the audit partitions.
 */
export const keys = {
  tenant: (tenantId: string) => ({ pk: `TENANT#${tenantId}`, sk: 'TENANT' }),
  /**
   * Every tenant in one index partition, for the operator's `list-tenants`. Tenants are
   * written only when an operator creates or changes one, so the partition never runs hot.
   */
  tenantIndex: (tenantId: string) => ({ gsi1pk: 'TENANTS', gsi1sk: `TENANT#${tenantId}` }),
  allTenants: () => ({ gsi1pk: 'TENANTS', gsi1skPrefix: 'TENANT#' }),
  user: (tenantId: string, userId: string) => ({ pk: `TENANT#${tenantId}`, sk: `USER#${userId}` }),
  usersOfTenant: (tenantId: string) => ({ pk: `TENANT#${tenantId}`, skPrefix: 'USER#' }),
  userCount: (tenantId: string) => ({ pk: `TENANT#${tenantId}`, sk: 'USERCOUNT' }),
  userLink: (tokenHash: string) => ({ pk: `USERLINK#${tokenHash}`, sk: 'USERLINK' }),
  email: (email: string) => ({ pk: `EMAIL#${email}`, sk: 'EMAIL' }),
  strategicCycle: (tenantId: string, cycleId: string) => ({
    pk: `TENANT#${tenantId}`,
    sk: `CYCLE#${cycleId}`,
  }),
  strategicCyclesOfTenant: (tenantId: string) => ({ pk: `TENANT#${tenantId}`, skPrefix: 'CYCLE#' }),
  // The KPI's own targets live on its item, as the map `targets` of `<periodStart>#<periodEnd>` to the
  // value (at most MAX_KPI_TARGETS periods): every reader of the KPI has them with no further request,
  // and one conditional UpdateItem with the audit event sets them all or none.
  kpi: (kpiId: string) => ({ pk: `KPI#${kpiId}`, sk: 'KPI' }),
  /** `archivedAt` and `cycleId` as the KPI has them: absent while live, absent without a cycle. */
  kpiIndex: (tenantId: string, kpiId: string, cycleId?: string, archivedAt?: string) => ({
    gsi1pk: `TENANT#${tenantId}`,
    gsi1sk: `${kpiListPrefix(archivedAt === undefined ? 'LIVE' : 'ARCHIVED', cycleId)}${cycleId === undefined ? 'NOCYCLE#' : ''}${kpiId}`,
  }),
  /** The tenant's live KPIs, or its archived ones; of one cycle only with `cycleId`. */
  kpisOfTenant: (tenantId: string, state: KpiListState = 'LIVE', cycleId?: string) => ({
    gsi1pk: `TENANT#${tenantId}`,
    gsi1skPrefix: kpiListPrefix(state, cycleId),
  }),
  /** Every KPI entry of the tenant, in any state and of any format: what the migration reads. */
  everyKpiOfTenant: (tenantId: string) => ({ gsi1pk: `TENANT#${tenantId}`, gsi1skPrefix: 'KPI#' }),
  kpiCount: (tenantId: string) => ({ pk: `TENANT#${tenantId}`, sk: 'KPICOUNT' }),
  measurement: (kpiId: string, periodStart: string, periodEnd: string) => ({
    pk: `KPI#${kpiId}`,
    sk: `MEASUREMENT#${periodStart}#${periodEnd}`,
  }),
  measurementsOfKpi: (kpiId: string) => ({ pk: `KPI#${kpiId}`, skPrefix: 'MEASUREMENT#' }),
  /** The KPI item and its measurements share one partition: one Query reads both. */
  kpiPartition: (kpiId: string) => ({ pk: `KPI#${kpiId}` }),
  apiKey: (keyHash: string) => ({ pk: `APIKEY#${keyHash}`, sk: 'APIKEY' }),
  apiKeyIndex: (tenantId: string, keyId: string) => ({
    gsi1pk: `TENANT#${tenantId}`,
    gsi1sk: `APIKEY#${keyId}`,
  }),
  apiKeysOfTenant: (tenantId: string) => ({ gsi1pk: `TENANT#${tenantId}`, gsi1skPrefix: 'APIKEY#' }),
  apiKeyUsageDay: (keyHash: string, day: string) => ({ pk: `APIKEY#${keyHash}`, sk: `USAGE#${day}` }),
  apiKeyUsageDays: (keyHash: string) => ({ pk: `APIKEY#${keyHash}`, skPrefix: 'USAGE#' }),
  apiKeySlots: (tenantId: string) => ({ pk: `TENANT#${tenantId}`, sk: 'APIKEYSLOTS' }),
  loginAttemptsOfEmail: (email: string) => ({ pk: `LOGIN#${email}`, sk: 'FAILURES' }),
  loginAttemptsFromSource: (email: string, source: string) => ({
    pk: `LOGIN#${email}`,
    sk: `SOURCE#${source}`,
  }),
  loginAttemptsOfSource: (source: string) => ({ pk: `LOGINSOURCE#${source}`, sk: 'FAILURES' }),
  /** Past the e-mail's ceiling: the attempts without a device token of the account, per minute. */
  loginAttemptsOfNewDevices: (email: string) => ({ pk: `LOGIN#${email}`, sk: 'NEWDEVICES' }),
  /** Past the e-mail's ceiling: the failures with one device token of the account. */
  loginAttemptsOfDevice: (email: string, deviceId: string) => ({
    pk: `LOGIN#${email}`,
    sk: `DEVICE#${deviceId}`,
  }),
  session: (sessionId: string) => ({ pk: `SESSION#${sessionId}`, sk: 'SESSION' }),
  healthProbe: () => ({ pk: 'HEALTH', sk: 'HEALTH' }),
  /**
   * A KPI with a cadence, in the shard of its id, sorted by the moment the alert check should look at
   * it next (`dueAt` as `toISOString` writes it, the caller's duty): never later than it would go quiet.
   */
  kpiQuietIndex: (kpiId: string, dueAt: string) => ({
    gsi2pk: `QUIET#${shardOf(kpiId)}`,
    gsi2sk: `${dueAt}#${kpiId}`,
  }),
  /** One shard of the KPIs the alert check looks at (0 to INDEX_SHARDS - 1). */
  kpisDueForCheck: (shard: string) => ({ gsi2pk: `QUIET#${shard}` }),
  /**
   * `expiresAt` as `toISOString` writes it (the caller's duty), so that a range of sort keys is a
   * range of time.
   */
  apiKeyExpiryIndex: (expiresAt: string, keyId: string) => ({
    gsi2pk: `KEYEXPIRY#${expiresAt.slice(0, 10)}`,
    gsi2sk: `${expiresAt}#${keyId}`,
  }),
  /** The bucket of keys expiring on a UTC day (`yyyy-mm-dd`); its sort keys start with the expiry. */
  apiKeysExpiringOn: (day: string) => ({ gsi2pk: `KEYEXPIRY#${day}` }),
  webhookEndpoint: (tenantId: string, endpointId: string) => ({
    pk: `TENANT#${tenantId}`,
    sk: `WEBHOOK#${endpointId}`,
  }),
  webhookEndpointsOfTenant: (tenantId: string) => ({ pk: `TENANT#${tenantId}`, skPrefix: 'WEBHOOK#' }),
  webhookCount: (tenantId: string) => ({ pk: `TENANT#${tenantId}`, sk: 'WEBHOOKCOUNT' }),
  webhookTests: (tenantId: string) => ({ pk: `TENANT#${tenantId}`, sk: 'WEBHOOKTESTS' }),
  webhookDelivery: (endpointId: string, deliveryId: string) => ({
    pk: `WEBHOOK#${endpointId}`,
    sk: `DELIVERY#${deliveryId}`,
  }),
  webhookDeliveries: (endpointId: string) => ({ pk: `WEBHOOK#${endpointId}`, skPrefix: 'DELIVERY#' }),
  queueMessage: (queue: string, messageId: string) => ({ pk: `QUEUE#${queue}`, sk: `MESSAGE#${messageId}` }),
  queueMessages: (queue: string) => ({ pk: `QUEUE#${queue}`, skPrefix: 'MESSAGE#' }),
  pullIntegration: (tenantId: string, integrationId: string) => ({
    pk: `TENANT#${tenantId}`,
    sk: `PULL#${integrationId}`,
  }),
  pullIntegrationsOfTenant: (tenantId: string) => ({ pk: `TENANT#${tenantId}`, skPrefix: 'PULL#' }),
  pullIntegrationCount: (tenantId: string) => ({ pk: `TENANT#${tenantId}`, sk: 'PULLCOUNT' }),
  /**
   * `dueAt` as `toISOString` writes it (the caller's duty), so that a range of sort keys is a range of
   * time; tenant and id make the entry unique and name the item it indexes.
   */
  pullDueIndex: (dueAt: string, tenantId: string, integrationId: string) => ({
    gsi2pk: `PULLDUE#${shardOf(integrationId)}`,
    gsi2sk: `${dueAt}#${tenantId}#${integrationId}`,
  }),
  /** One shard of the integrations the scheduler runs (0 to INDEX_SHARDS - 1). */
  pullDue: (shard: string) => ({ gsi2pk: `PULLDUE#${shard}` }),
  /**
   * The index partitions of KPIs with a cadence and of pull integrations before they were sharded:
   * read only by the operator's `shard-due-indexes`, which moves their items into the shards.
   */
  unshardedDueIndexes: () => ({ kpis: 'CADENCE', integrations: 'PULLDUE' }) as const,
  pullRun: (integrationId: string, runId: string) => ({ pk: `PULL#${integrationId}`, sk: `RUN#${runId}` }),
  pullRuns: (integrationId: string) => ({ pk: `PULL#${integrationId}`, skPrefix: 'RUN#' }),
  pullUsageDay: (integrationId: string, day: string) => ({
    pk: `PULL#${integrationId}`,
    sk: `USAGE#${day}`,
  }),
  /** `at` as `toISOString` writes it (the caller's duty), so that a range of sort keys is a range of time. */
  auditEvent: (tenantId: string, at: string, eventId: string) => ({
    pk: `AUDIT#${tenantId}`,
    sk: `EVENT#${at}#${eventId}`,
  }),
  /**
   * The sort keys of a tenant's events from `from` (inclusive) to `to` (exclusive), each an instant as
   * `toISOString` writes it; open ends reach the first and the last event. `EVENT#<to>` sorts before
   * every event at `to` (whose key goes on with `#`), and `~` after every instant.
   */
  auditEventsOfTenant: (tenantId: string, from?: string, to?: string) => ({
    pk: `AUDIT#${tenantId}`,
    skPrefix: 'EVENT#',
    skFrom: `EVENT#${from ?? ''}`,
    skTo: `EVENT#${to ?? '~'}`,
  }),
} as const;

export type ItemKey = { pk: string; sk: string };

/** The start of a KPI's index entry: its state, then its cycle when it has one (see the table above). */
export type KpiListState = 'LIVE' | 'ARCHIVED';
function kpiListPrefix(state: KpiListState, cycleId: string | undefined): string {
  return `KPI#${state}#${cycleId === undefined ? '' : `CYCLE#${cycleId}#`}`;
}

/**
 * How many partitions each due index of gsi2 (KPIs the alert check looks at, integrations the
 * scheduler runs) is spread over. A reader queries every shard, so a pass is INDEX_SHARDS range
 * Queries whatever the platform holds; a partition takes about 1,000 write units a second, so an index
 * throttles only past INDEX_SHARDS times that.
 */
export const INDEX_SHARDS = 16;

/** The shard of an id: a hash of it, so that ids of any shape (UUIDv7 share their leading time) spread evenly. */
export const shardOf = (id: string): number =>
  createHash('sha256').update(id).digest().readUInt8(0) % INDEX_SHARDS;

/** Every shard, as its key names it, for a reader that queries them all. */
export const allShards = (): string[] => Array.from({ length: INDEX_SHARDS }, (_, shard) => String(shard));

/**
 * What follows a template's constant part in a key attribute of a stored item, the part given by the
 * template itself (`keyPart(item.pk, keys.apiKey('').pk)` is the key hash), or undefined when the
 * attribute is not of that template: how an entity declaration reads a field that only its key holds
 * (lib/db/entity.ts), parsed like any other.
 */
export const keyPart = (attribute: unknown, prefix: string): string | undefined =>
  typeof attribute === 'string' && attribute.startsWith(prefix) ? attribute.slice(prefix.length) : undefined;

export const GSI1 = 'gsi1' as const;
export const GSI2 = 'gsi2' as const;

/**
 * The partitions of the table, as the keys above begin: what a function's deployment declares it
 * touches (lib/deployment.ts), and so the `dynamodb:LeadingKeys` its role allows. A prefix ending in
 * `#` covers every partition of its kind; `HEALTH` is the one item of its own.
 */
export const PARTITIONS = [
  'TENANT#',
  'EMAIL#',
  'USERLINK#',
  'KPI#',
  'APIKEY#',
  'LOGIN#',
  'LOGINSOURCE#',
  'SESSION#',
  'HEALTH',
  'WEBHOOK#',
  'QUEUE#',
  'PULL#',
  'AUDIT#',
] as const;

export type Partition = (typeof PARTITIONS)[number];
