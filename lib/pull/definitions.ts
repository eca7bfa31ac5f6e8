import { batchGet } from '../db/batch';
import type { Database } from '../db/client';
import { keys } from '../db/keys';
import { toKpi } from '../db/kpis';
import { replaceIntegration, type StoredIntegration } from '../db/pull-integrations';
import { type AuditContext, auditEvent, systemContext } from '../domain/audit-event';
import type { Kpi } from '../domain/kpi';
import {
  type PullAuthView,
  type PullBinding,
  type PullIntegration,
  type PullPeriod,
  type PullSchedule,
  type PullSecrets,
  TIMED_EVERY,
} from '../domain/pull-integration';
import { tenantUrlProblem } from '../egress/urls';
import { AppError, type FieldError } from '../errors';
import { uuidv7 } from '../ids';
import { logAuditEvent } from '../logger';
import { assertLiveKpis, assertOwnership } from '../push/store';
import { expressionProblem } from './extract';
import {
  type AuthInput,
  type AuthPatch,
  type CreatePullIntegration,
  givenBindings,
  type UpdatePullIntegration,
} from './inputs';
import { nextSlot } from './schedule';
import { destinationChange, openSecrets, sealSecrets } from './secrets';
import {
  addIntegration,
  assertMayPull,
  integrationDetails,
  notFound,
  type PullDeps,
  readIntegration,
} from './service';

/**
 * Creating and changing a pull integration: what zod cannot judge of a definition, the bindings' KPIs,
 * and the credentials sealed apart from what is shown. Apart from ./service.ts, so that the functions
 * that only read or delete integrations carry no KPI reads. Each change is written with its audit
 * event in one transaction.
 */

const invalid = (errors: FieldError[]) =>
  new AppError('VALIDATION_FAILED', `The request body has ${errors.length} invalid field(s).`, { errors });

/** What of a definition zod cannot judge: the URLs' egress rules, the expressions, repeated KPIs. */
const definitionProblems = (
  { local }: Pick<PullDeps, 'local'>,
  definition: {
    url?: string | undefined;
    headers?: Record<string, string> | undefined;
    auth?: AuthInput | AuthPatch | { type: 'header'; name: string } | undefined;
    period?: PullPeriod | undefined;
    schedule?: PullSchedule | undefined;
    bindings?: PullBinding[] | undefined;
  },
  list: string,
): FieldError[] => {
  const errors: FieldError[] = [];
  const { schedule } = definition;
  if (schedule?.at !== undefined && !TIMED_EVERY.includes(schedule.every)) {
    errors.push({ path: 'schedule.at', message: 'at is only for day, week and month' });
  }
  const url = (path: string, text: string | undefined) => {
    const problem = text === undefined ? undefined : tenantUrlProblem(text, { local });
    if (problem) errors.push({ path, message: problem });
  };
  url('url', definition.url);
  const { auth: given } = definition;
  if (given?.type === 'oauth2_client_credentials') url('auth.tokenUrl', given.tokenUrl);
  const { auth, headers } = definition;
  if (auth?.type === 'header' && headers) {
    const name = auth.name.toLowerCase();
    if (Object.keys(headers).some((header) => header.toLowerCase() === name)) {
      errors.push({ path: 'auth.name', message: 'is also in headers: name it once' });
    }
  }
  const expression = (path: string, text: string | undefined) => {
    const problem = text === undefined ? undefined : expressionProblem(text);
    if (problem) errors.push({ path, message: problem });
  };
  if (typeof definition.period === 'object') {
    expression('period.start', definition.period.start);
    expression('period.end', definition.period.end);
  }
  const first = new Map<string, number>();
  definition.bindings?.forEach((binding, index) => {
    expression(`${list}[${index}].actual`, binding.actual);
    expression(`${list}[${index}].target`, binding.target);
    expression(`${list}[${index}].forecast`, binding.forecast);
    const earlier = first.get(binding.kpiId);
    if (earlier === undefined) first.set(binding.kpiId, index);
    else errors.push({ path: `${list}[${index}].kpiId`, message: `same KPI as ${list}[${earlier}]` });
  });
  return errors;
};

const kpiKey = (id: string) => keys.kpi(id);

/** The tenant's KPIs the bindings name, by id (missing and foreign ones absent). */
export const kpisOf = async (db: Database, tenantId: string, bindings: PullBinding[]) => {
  const items = await batchGet(db, [...new Set(bindings.map((b) => b.kpiId))].map(kpiKey));
  const kpis = new Map<string, Kpi>();
  for (const item of items) {
    const kpi = toKpi(item);
    if (kpi.tenantId === tenantId) kpis.set(kpi.id, kpi);
  }
  return kpis;
};

/**
 * Every binding's KPI must be the tenant's, of its type: 404 naming the others, as a push does. A
 * period of a unit (not read from the answer) must be each KPI's own, as a push's span must be one
 * whole period of its KPI: 400 naming the binding and the KPI's period. A period read from the answer
 * is checked at every run (./run.ts).
 */
const assertKpis = async (
  db: Database,
  tenantId: string,
  bindings: PullBinding[],
  period: PullPeriod,
  list = 'bindings',
) => {
  const kpis = await kpisOf(db, tenantId, bindings);
  assertOwnership(bindings, kpis, tenantId);
  assertLiveKpis(
    bindings.map((b) => b.kpiId),
    kpis,
  );
  if (typeof period !== 'string') return;
  const errors = bindings.flatMap((binding, index) => {
    const kpiPeriod = (kpis.get(binding.kpiId) as Kpi).period;
    return kpiPeriod === period
      ? []
      : [
          {
            path: `${list}[${index}].kpiId`,
            message: `the KPI's period is ${kpiPeriod}, not the integration's ${period}: its values must be one whole ${kpiPeriod} (set period to "${kpiPeriod}", or bind it in an integration of its own)`,
          },
        ];
  });
  if (errors.length > 0) throw invalid(errors);
};

const SET = { set: true } as const;

/** The authentication as stored and shown, and its secrets apart. */
const splitAuth = (auth: AuthInput): { view: PullAuthView; secrets: PullSecrets } => {
  switch (auth.type) {
    case 'none':
      return { view: auth, secrets: {} };
    case 'bearer':
      return { view: { type: 'bearer', token: SET }, secrets: { token: auth.token } };
    case 'header':
      return { view: { type: 'header', name: auth.name, value: SET }, secrets: { value: auth.value } };
    case 'basic':
      return {
        view: { type: 'basic', username: auth.username, password: SET },
        secrets: { password: auth.password },
      };
    case 'oauth2_client_credentials':
      return {
        view: {
          type: 'oauth2_client_credentials',
          tokenUrl: auth.tokenUrl,
          clientId: auth.clientId,
          clientSecret: SET,
          scope: auth.scope ?? null,
        },
        secrets: { clientSecret: auth.clientSecret },
      };
  }
};

/** The secret field of each type: what a change must send when it changes the type. */
const SECRET_FIELD = {
  none: null,
  bearer: 'token',
  header: 'value',
  basic: 'password',
  oauth2_client_credentials: 'clientSecret',
} as const;

/**
 * A new definition as a creation and a preview of it judge it alike, before any KPI is read: its
 * bindings (under either name), its period, and its authentication split into what is shown and its
 * secrets; 400 naming each field zod could not judge.
 */
export const checkedDefinition = (deps: Pick<PullDeps, 'local'>, input: CreatePullIntegration) => {
  const given = givenBindings(input);
  const bindings = given.bindings ?? [];
  const problems = definitionProblems(deps, { ...input, bindings }, given.list);
  if (problems.length > 0) throw invalid(problems);
  return { bindings, list: given.list, period: input.period ?? 'month', ...splitAuth(input.auth) };
};

export const createIntegration = async (
  deps: PullDeps,
  input: CreatePullIntegration & { tenantId: string; createdBy: PullIntegration['createdBy'] },
  context: AuditContext = systemContext('service'),
): Promise<StoredIntegration> => {
  const { db, now = Date.now } = deps;
  const tenant = await assertMayPull(deps, input.tenantId);
  const { bindings, list, period, view, secrets } = checkedDefinition(deps, input);
  await assertKpis(db, input.tenantId, bindings, period, list);
  const at = new Date(now()).toISOString();
  const integration: PullIntegration = {
    id: uuidv7(now()),
    tenantId: input.tenantId,
    name: input.name,
    url: input.url,
    headers: input.headers ?? {},
    auth: view,
    schedule: input.schedule,
    period,
    bindings,
    status: 'active',
    consecutiveFailures: 0,
    failingSince: null,
    disabledAt: null,
    lastRun: null,
    // Due at once: its first run is the scheduler's next pass.
    nextRunAt: at,
    createdAt: at,
    createdBy: input.createdBy,
    updatedAt: at,
  };
  const stored: StoredIntegration = {
    ...integration,
    sealedSecrets: await sealSecrets(deps.secrets, integration, secrets),
    claimedSlot: null,
  };
  const event = auditEvent(context, {
    type: 'integration.created',
    tenantId: integration.tenantId,
    target: { type: 'integration', id: integration.id },
    details: integrationDetails(integration),
  });
  await addIntegration(db, tenant.plan, stored, event);
  logAuditEvent(event);
  return stored;
};

/**
 * Changes an integration: fields not sent stay; a secret is replaced only when sent. A change of the
 * authentication type must send the new type's secret, and so must a change of the destination (the
 * URL's origin, the token URL's origin, the header's name): a stored secret never follows a new
 * destination. Any change makes a failing or disabled integration active again and due at once; a new
 * schedule moves an active one's next run to the new schedule's next slot.
 */
export const updateIntegration = async (
  deps: PullDeps,
  tenantId: string,
  id: string,
  patch: UpdatePullIntegration,
  context: AuditContext = systemContext('service'),
): Promise<StoredIntegration> => {
  const { db, now = Date.now } = deps;
  const stored = await readIntegration(deps, tenantId, id);
  const headers = patch.headers ?? stored.headers;
  const authName =
    patch.auth ??
    (stored.auth.type === 'header' ? { type: 'header' as const, name: stored.auth.name } : undefined);
  const sentBindings = givenBindings(patch);
  const problems = definitionProblems(
    deps,
    { ...patch, bindings: sentBindings.bindings, headers, auth: authName },
    sentBindings.list,
  );
  const url = patch.url ?? stored.url;
  const given = patch.auth ?? stored.auth;
  const field = SECRET_FIELD[given.type];
  const sent = field === null || !patch.auth ? undefined : (patch.auth as Record<string, unknown>)[field];
  const moved = destinationChange(stored, { url, auth: given });
  let auth = stored.auth;
  let sealedSecrets = stored.sealedSecrets;
  if (field !== null && sent === undefined && given.type !== stored.auth.type) {
    problems.push({ path: `auth.${field}`, message: `is required when the type changes to ${given.type}` });
  } else if (field !== null && sent === undefined && moved !== null) {
    problems.push({
      path: `auth.${field}`,
      message: `is required when ${moved} changes: a stored secret is never sent to a new destination`,
    });
  }
  if (problems.length === 0) {
    const kept = field !== null && sent === undefined;
    const opened = kept ? await openSecrets(deps.secrets, stored, stored.sealedSecrets) : {};
    // Kept credentials that lack the type's secret are as good as none that open.
    const secrets = kept && opened?.[field as keyof PullSecrets] === undefined ? undefined : opened;
    if (secrets === undefined && patch.auth) {
      problems.push({
        path: `auth.${field}`,
        message: 'the stored secret could not be opened: send it again',
      });
    } else if (secrets !== undefined) {
      // Sealed anew on every change, for the destination as it is now (and in the current form).
      const split = splitAuth({ ...(given as AuthInput), ...(kept ? secrets : {}) } as AuthInput);
      if (patch.auth) auth = split.view;
      sealedSecrets = await sealSecrets(deps.secrets, { tenantId, id, url, auth }, split.secrets);
    }
  }
  if (problems.length > 0) throw invalid(problems);
  if (sentBindings.bindings || patch.period) {
    await assertKpis(
      db,
      tenantId,
      sentBindings.bindings ?? stored.bindings,
      patch.period ?? stored.period,
      sentBindings.bindings ? sentBindings.list : 'bindings',
    );
  }
  const at = now();
  const reset = stored.status !== 'active';
  const schedule = patch.schedule ?? stored.schedule;
  const nextRunAt = reset
    ? new Date(at).toISOString()
    : patch.schedule
      ? new Date(nextSlot(schedule, at)).toISOString()
      : stored.nextRunAt;
  const updated: StoredIntegration = {
    ...stored,
    name: patch.name ?? stored.name,
    url: patch.url ?? stored.url,
    headers,
    auth,
    sealedSecrets,
    schedule,
    period: patch.period ?? stored.period,
    bindings: sentBindings.bindings ?? stored.bindings,
    ...(reset ? { status: 'active', consecutiveFailures: 0, failingSince: null, disabledAt: null } : {}),
    nextRunAt,
    updatedAt: new Date(at).toISOString(),
  };
  const event = auditEvent(
    context,
    {
      type: 'integration.updated',
      tenantId,
      target: { type: 'integration', id },
      details: { ...integrationDetails(updated), fields: Object.keys(patch).sort() },
    },
    at,
  );
  if (!(await replaceIntegration(db, updated, event))) throw notFound(id);
  logAuditEvent(event);
  return updated;
};
