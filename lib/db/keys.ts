/**
 * Every partition and sort key of the single table is built here, and nowhere else.
 *
 * | entity           | pk                  | sk                          | gsi1pk         | gsi1sk            |
 * |------------------|---------------------|-----------------------------|----------------|-------------------|
 * | tenant           | TENANT#<tid>        | TENANT                      |                |                   |
 * | user             | TENANT#<tid>        | USER#<uid>                  |                |                   |
 * | e-mail → user    | EMAIL#<email>       | EMAIL                       |                |                   |
 * | strategic cycle  | TENANT#<tid>        | CYCLE#<cid>                 |                |                   |
 * | KPI              | KPI#<kid>           | KPI                         | TENANT#<tid>   | KPI#<kid>         |
 * | measurement      | KPI#<kid>           | MEASUREMENT#<start>#<end>   |                |                   |
 * | API key          | APIKEY#<sha256>     | APIKEY                      | TENANT#<tid>   | APIKEY#<keyId>    |
 * | API key slots    | TENANT#<tid>        | APIKEYSLOTS                 |                |                   |
 * | push rate counter| APIKEY#<sha256>     | RATE#<windowStartEpochSec>  |                |                   |
 * | failed logins    | LOGIN#<email>       | FAILURES                    |                |                   |
 *
 * KPIs are keyed by their globally unique id (not by tenant) so that a push, which knows only the
 * KPI ids and the API key, can read them in its first round trip; ownership is checked against
 * the item's `tenantId`. API keys are keyed by the SHA-256 of the raw key, so verifying a key is one
 * strongly consistent GetItem (a revocation is seen by the very next request); the index lists a
 * tenant's keys. The slots item holds the tenant's active key ids and a version for the plan maximum.
 */
export const keys = {
  tenant: (tenantId: string) => ({ pk: `TENANT#${tenantId}`, sk: 'TENANT' }),
  user: (tenantId: string, userId: string) => ({ pk: `TENANT#${tenantId}`, sk: `USER#${userId}` }),
  email: (email: string) => ({ pk: `EMAIL#${email}`, sk: 'EMAIL' }),
  strategicCycle: (tenantId: string, cycleId: string) => ({
    pk: `TENANT#${tenantId}`,
    sk: `CYCLE#${cycleId}`,
  }),
  strategicCyclesOfTenant: (tenantId: string) => ({ pk: `TENANT#${tenantId}`, skPrefix: 'CYCLE#' }),
  kpi: (kpiId: string) => ({ pk: `KPI#${kpiId}`, sk: 'KPI' }),
  kpiIndex: (tenantId: string, kpiId: string) => ({ gsi1pk: `TENANT#${tenantId}`, gsi1sk: `KPI#${kpiId}` }),
  kpisOfTenant: (tenantId: string) => ({ gsi1pk: `TENANT#${tenantId}`, gsi1skPrefix: 'KPI#' }),
  measurement: (kpiId: string, periodStart: string, periodEnd: string) => ({
    pk: `KPI#${kpiId}`,
    sk: `MEASUREMENT#${periodStart}#${periodEnd}`,
  }),
  measurementsOfKpi: (kpiId: string) => ({ pk: `KPI#${kpiId}`, skPrefix: 'MEASUREMENT#' }),
  apiKey: (keyHash: string) => ({ pk: `APIKEY#${keyHash}`, sk: 'APIKEY' }),
  apiKeyIndex: (tenantId: string, keyId: string) => ({
    gsi1pk: `TENANT#${tenantId}`,
    gsi1sk: `APIKEY#${keyId}`,
  }),
  apiKeysOfTenant: (tenantId: string) => ({ gsi1pk: `TENANT#${tenantId}`, gsi1skPrefix: 'APIKEY#' }),
  apiKeySlots: (tenantId: string) => ({ pk: `TENANT#${tenantId}`, sk: 'APIKEYSLOTS' }),
  rateCounter: (keyHash: string, windowStart: number) => ({
    pk: `APIKEY#${keyHash}`,
    sk: `RATE#${windowStart}`,
  }),
  loginFailures: (email: string) => ({ pk: `LOGIN#${email}`, sk: 'FAILURES' }),
} as const;

export type ItemKey = { pk: string; sk: string };

export const GSI1 = 'gsi1' as const;
