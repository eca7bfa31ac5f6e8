/**
 * The API's response types, as the routes declare them (their zod response schemas, functions/). Type-
 * only: esbuild erases these imports, so no schema code and no route module reaches the browser. The
 * pages import API types from here only.
 */
import type * as z from 'zod/mini';
import type { route as getApiKeyUsage } from '../../functions/get-api-key-usage';
import type { route as getKpi } from '../../functions/get-kpi';
import type { route as getKpiProjection } from '../../functions/get-kpi-projection';
import type { route as inviteUser } from '../../functions/invite-user';
import type { route as listApiKeys } from '../../functions/list-api-keys';
import type { route as listAuditEvents } from '../../functions/list-audit-events';
import type { route as listKpiOwners } from '../../functions/list-kpi-owners';
import type { route as listKpis } from '../../functions/list-kpis';
import type { route as listPullIntegrationRuns } from '../../functions/list-pull-integration-runs';
import type { route as listPullIntegrations } from '../../functions/list-pull-integrations';
import type { route as listUsers } from '../../functions/list-users';
import type { route as login } from '../../functions/login';
import type { route as previewPullIntegration } from '../../functions/preview-pull-integration';
import type { route as refreshToken } from '../../functions/refresh-token';
import type { route as revokeApiKey } from '../../functions/revoke-api-key';
import type { route as runPullIntegration } from '../../functions/run-pull-integration';
import type { ApiKeyView, CreatedApiKeyView, RolledApiKeyView } from '../../lib/api-keys/views';
import type { problemSchema } from '../../lib/http/middleware';
import type { ResponseBody } from '../../lib/http/route';

export type ApiKeyPage = ResponseBody<typeof listApiKeys, 200>;
export type ApiKeyResponse = ApiKeyView;
/** A key as listed: the view and its last 30 days of use. */
export type ApiKeyListItem = ApiKeyPage['items'][number];
export type ApiKeyRecentUsage = ApiKeyListItem['usage'];
export type ApiKeyUsageResponse = ResponseBody<typeof getApiKeyUsage, 200>;
export type CreatedApiKeyResponse = CreatedApiKeyView;
export type RolledApiKeyResponse = RolledApiKeyView;
export type RevokedApiKeyResponse = ResponseBody<typeof revokeApiKey, 200>;
export type KpiDetailResponse = ResponseBody<typeof getKpi, 200>;
export type KpiPage = ResponseBody<typeof listKpis, 200>;
export type KpiOwnerPage = ResponseBody<typeof listKpiOwners, 200>;
export type KpiProjectionResponse = ResponseBody<typeof getKpiProjection, 200>;
export type AuditEventPage = ResponseBody<typeof listAuditEvents, 200>;
/** Where a KPI stands against its target; null for a qualitative KPI. */
export type KpiStatusResponse = KpiDetailResponse['status'];
export type LoginResponse = ResponseBody<typeof login, 200>;
export type PersonPage = ResponseBody<typeof listUsers, 200>;
export type PersonResponse = PersonPage['items'][number];
/** A person with their new one-time link (an invitation or a password reset), shown once. */
export type PersonWithLinkResponse = ResponseBody<typeof inviteUser, 201>;
export type RefreshResponse = ResponseBody<typeof refreshToken, 200>;
export type ProblemResponse = z.output<typeof problemSchema>;
export type PullIntegrationPage = ResponseBody<typeof listPullIntegrations, 200>;
export type PullIntegrationResponse = PullIntegrationPage['items'][number];
export type PullRunPage = ResponseBody<typeof listPullIntegrationRuns, 200>;
export type PullRunResponse = ResponseBody<typeof runPullIntegration, 200>;
export type PullPreviewResponse = ResponseBody<typeof previewPullIntegration, 200>;

/** A target a KPI holds for one of its periods (`PUT /kpis/{kpiId}/targets`). */
export interface KpiTarget {
  periodStart: string;
  periodEnd: string;
  value: number;
}
export type CycleStatus = 'planned' | 'active' | 'closed';
/** How many of a cycle's live KPIs stand where (`GET /strategic-cycles/{id}`), by `status.value`. */
export interface StatusCounts {
  on_track: number;
  at_risk: number;
  off_track: number;
  no_target: number;
  no_data: number;
  qualitative: number;
}
export interface CycleResponse {
  id: string;
  name: string;
  startDate: string;
  endDate: string;
  description?: string | null | undefined;
  status?: CycleStatus | undefined;
  kpiCount?: number | undefined;
  statusCounts?: StatusCounts | undefined;
}
export interface CyclePage {
  items: CycleResponse[];
  nextCursor?: string | undefined;
}
