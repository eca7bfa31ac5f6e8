/** The push routes' description of their checks: one text, so both routes say the same. */
export const PUSH_ORDER = [
  'Checks, in this order; the first that fails answers:',
  '1. `x-api-key` present, well-formed and known (401 `invalid-api-key`);',
  '2. a key with `allowedSources`: the request comes from one of them (403 `source-not-allowed`, naming the address seen in `sourceIp`);',
  '3. key not revoked or expired, tenant active, plan includes `kpi_push_measurement` (403);',
  '4. within the key’s rate limit (429 with `Retry-After`);',
  '5. body and query valid (400 `validation-failed`, every offending field in `errors`; 413; 415);',
  '6. every `kpiId` is a KPI of the key’s tenant with that `kpiType` (404, all missing ids in `missingKpiIds`);',
  '7. a KPI-scoped key: every `kpiId` is in its scope (403 `kpi-outside-key-scope`, the others in `outOfScopeKpiIds`);',
  '8. no KPI is archived (409 `kpi-archived`, naming each, their ids in `archivedKpiIds`): a batch with one writes nothing.',
  '',
  'Pushes are idempotent per KPI and period: sending the same measurement again replaces it and keeps its `id`, so retrying after a timeout or a 5xx is safe.',
  '',
  '**Dry run**: `?dryRun=true` runs every check above with the same answers, counts against the rate limit like any request, and writes nothing (not even the key’s `lastUsedAt`). The answer is 200 with `dryRun: true` and what a real push would store: each `status` is `created` or `updated`, and a `measurement` that does not exist yet has `id: null`.',
].join('\n');

/** The push errors besides those of the key (which the document adds from `auth: 'apiKey'`). */
export const PUSH_ERRORS = [
  'FEATURE_NOT_ENABLED',
  'KPI_OUTSIDE_KEY_SCOPE',
  'NOT_FOUND',
  'KPI_ARCHIVED',
  'RATE_LIMIT_EXCEEDED',
] as const;
