import type { Database } from '../db/client';
import { retryingConflicts } from '../db/errors';
import type { Page, PageRequest } from '../db/pagination';
import {
  deleteIntegration,
  getIntegration,
  IntegrationLimitReached,
  integrationPage,
  type PullUsageDay,
  putIntegration,
  runPage,
  type StoredIntegration,
  usageDaysOf,
} from '../db/pull-integrations';
import {
  type AuditContext,
  type AuditDetails,
  auditEvent,
  systemContext,
  type TenantAuditEvent,
} from '../domain/audit-event';
import { Feature, type Plan, PULL_INTEGRATION_LIMITS } from '../domain/plan';
import type { PullIntegration, PullRun } from '../domain/pull-integration';
import type { Egress } from '../egress';
import { urlForLog } from '../egress/urls';
import { AppError } from '../errors';
import { logAuditEvent } from '../logger';
import type { TenantCache } from '../tenant-cache';
import type { Publish } from '../webhooks/events';
import type { TokenCache } from './fetch';
import type { PullSecretSeal } from './secrets';

/**
 * The use cases of pull integrations: list, read, delete, and read the run log; creating and changing
 * are in ./definitions.ts, previews and runs in ./run.ts. Every one of them needs the
 * plan feature `kpi_api_integration` (403 `feature-not-enabled`, as a push without
 * `kpi_push_measurement`), and another tenant's integration is NOT_FOUND, as an unknown one.
 */
export interface PullDeps {
  db: Database;
  /** Seals and opens the credentials (./secrets.ts). */
  secrets: PullSecretSeal;
  tenants: TenantCache;
  /** The local stage: `http://` to this machine is allowed. */
  local: boolean;
  now?: () => number;
}

/**
 * What a preview needs besides: the egress guard and the OAuth token cache. Apart, so that the
 * functions that only manage integrations carry neither, and a preview no publisher.
 */
export interface PullFetchDeps extends PullDeps {
  egress: Egress;
  tokens: TokenCache;
}

/** A run may disable its integration, which it announces to the tenant's webhooks. */
export interface PullRunDeps extends PullFetchDeps {
  publish: Publish;
}

/** The plan feature every pull route needs, refused with the push's problem shape. */
export const assertMayPull = async ({ tenants }: Pick<PullDeps, 'tenants'>, tenantId: string) => {
  const tenant = await tenants.get(tenantId);
  if (!tenant?.features.includes(Feature.KPI_API_INTEGRATION)) {
    throw new AppError(
      'FEATURE_NOT_ENABLED',
      `The plan of this organization does not include ${Feature.KPI_API_INTEGRATION}. Upgrade the plan to pull KPI values from other systems.`,
      { extensions: { feature: Feature.KPI_API_INTEGRATION } },
    );
  }
  return tenant;
};

/**
 * Stores a new integration within its tenant's plan maximum (the count item decides, also when
 * several are created at once): past it, a 409 naming the maximum and the plan.
 */
export const addIntegration = async (
  db: Database,
  plan: Plan,
  stored: StoredIntegration,
  event: TenantAuditEvent,
) => {
  const limit = PULL_INTEGRATION_LIMITS[plan];
  try {
    await retryingConflicts('pull integration', () => putIntegration(db, stored, event, limit));
  } catch (error) {
    if (!(error instanceof IntegrationLimitReached)) throw error;
    throw new AppError(
      'PULL_INTEGRATION_LIMIT_REACHED',
      `The ${plan} plan allows ${limit} pull integrations and all ${limit} exist. Delete one or upgrade the plan.`,
      { extensions: { limit, plan } },
    );
  }
};

/**
 * What an integration's audit events say of it: its name, where it points (the URL's origin and a
 * hash of the rest, which may hold a token) and how it authenticates; never a secret.
 */
export const integrationDetails = (integration: Pick<PullIntegration, 'name' | 'url' | 'auth'>) =>
  ({
    name: integration.name,
    ...urlForLog(integration.url),
    auth: integration.auth.type,
  }) satisfies AuditDetails;

export const notFound = (id: string) => new AppError('NOT_FOUND', `Pull integration ${id} not found.`);

/** A live integration of the tenant, or NOT_FOUND. */
export const readIntegration = async (
  deps: Pick<PullDeps, 'db' | 'tenants'>,
  tenantId: string,
  id: string,
): Promise<StoredIntegration> => {
  await assertMayPull(deps, tenantId);
  const stored = await getIntegration(deps.db, tenantId, id);
  if (!stored) throw notFound(id);
  return stored;
};

const USAGE_DAYS = 30;

/** An integration with its runs per day of the last 30 days. */
export const integrationWithUsage = async (
  deps: Pick<PullDeps, 'db' | 'tenants' | 'now'>,
  tenantId: string,
  id: string,
): Promise<{ stored: StoredIntegration; usage: PullUsageDay[] }> => {
  const stored = await readIntegration(deps, tenantId, id);
  const now = (deps.now ?? Date.now)();
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const usage = await usageDaysOf(deps.db, id, day(now - (USAGE_DAYS - 1) * 86_400_000), day(now));
  return { stored, usage };
};

export const listIntegrations = async (
  deps: Pick<PullDeps, 'db' | 'tenants'>,
  tenantId: string,
  page: PageRequest,
): Promise<Page<StoredIntegration>> => {
  await assertMayPull(deps, tenantId);
  return integrationPage(deps.db, tenantId, page);
};

/**
 * Deletes an integration, with its audit event in the same transaction. It is read first, so that the
 * event names what was deleted, as the events of its creation did.
 */
export const removeIntegration = async (
  deps: Pick<PullDeps, 'db' | 'tenants'>,
  tenantId: string,
  id: string,
  context: AuditContext = systemContext('service'),
) => {
  const stored = await readIntegration(deps, tenantId, id);
  const event = auditEvent(context, {
    type: 'integration.deleted',
    tenantId,
    target: { type: 'integration', id },
    details: integrationDetails(stored),
  });
  if (!(await deleteIntegration(deps.db, tenantId, id, event))) throw notFound(id);
  logAuditEvent(event);
};

/** One page of the run log, newest first. */
export const listRuns = async (
  deps: Pick<PullDeps, 'db' | 'tenants'>,
  tenantId: string,
  id: string,
  page: PageRequest,
): Promise<Page<PullRun>> => {
  await readIntegration(deps, tenantId, id);
  return runPage(deps.db, id, page);
};
