import { putAuditEvent } from '../db/audit-events';
import { batchGet } from '../db/batch';
import { type ItemKey, keys } from '../db/keys';
import { toKpi } from '../db/kpis';
import { type PlannedMeasurement, toMeasurement, type WriteContext } from '../db/measurements';
import {
  countRun,
  getIntegration,
  PULL_RETENTION_DAYS,
  putRun,
  putRunState,
  type RunState,
  type StoredIntegration,
} from '../db/pull-integrations';
import { type AuditContext, auditEvent, systemContext } from '../domain/audit-event';
import type { Kpi } from '../domain/kpi';
import type { PullRun, PullSecrets, RunBinding, RunErrorClass, RunOutcome } from '../domain/pull-integration';
import { uuidv7 } from '../ids';
import { logAuditEvent, logger } from '../logger';
import type { MeasurementInput } from '../push/measurement-schema';
import {
  archivedKpiMessage,
  type ExistingOf,
  measurementKey,
  placeInPeriod,
  planStore,
  storeMeasurements,
  writableKpi,
} from '../push/store';
import { shownAnswer } from './answer';
import { checkedDefinition } from './definitions';
import { type Extracted, extract } from './extract';
import { type FetchResult, fetchSource } from './fetch';
import type { CreatePullIntegration } from './inputs';
import { DISABLE_AFTER_MS, FAILING_AFTER, nextRunAfter, nextSlot } from './schedule';
import { type RunMessage, runMessageSchema } from './scheduler';
import { openSecrets } from './secrets';
import {
  assertMayPull,
  integrationDetails,
  notFound,
  type PullFetchDeps,
  type PullRunDeps,
  readIntegration,
} from './service';

/** The scheduler's worker, as the actor of what a scheduled run changes. */
export const PULL_SCHEDULER_ACTOR = 'pull-scheduler';

/**
 * What a run does, for a preview, a manual run and a scheduled one alike: fetch the source (./fetch.ts),
 * read each binding's values (./extract.ts), check each binding's KPI (the tenant's, of its type: a
 * deleted KPI fails its binding, visibly), and write the measurements through the push's own write
 * path (lib/push/store.ts). Every binding is extracted and checked before the first write, so a run
 * never half-writes a set of values; bindings that fail are reported and skipped (`partial`), and a
 * run that can store nothing has `failed`. Nothing of the body reaches a log or the run log: values and
 * problems only.
 */

/** The KPIs and existing records of the measurements, read in one round trip. */
const readTargets = async (
  deps: Pick<PullFetchDeps, 'db'>,
  tenantId: string,
  measurements: MeasurementInput[],
) => {
  const kpiIds = [...new Set(measurements.map((m) => m.kpiId))];
  const wanted: ItemKey[] = [...kpiIds.map((id) => keys.kpi(id)), ...measurements.map(measurementKey)];
  const items = await batchGet(deps.db, wanted);
  const itemId = ({ pk, sk }: ItemKey) => `${pk}|${sk}`;
  const byId = new Map(items.map((item) => [itemId(item as ItemKey), item]));
  const kpis = new Map<string, Kpi>();
  for (const id of kpiIds) {
    const item = byId.get(itemId(keys.kpi(id)));
    if (item) kpis.set(id, toKpi(item));
  }
  return {
    kpis,
    existing: (m: MeasurementInput) => {
      const item = byId.get(itemId(measurementKey(m)));
      return item ? toMeasurement(item) : undefined;
    },
    tenantId,
  };
};

const KPI_PROBLEM = 'no KPI of this organization with this id and kpiType (deleted?)';

interface Evaluation {
  fetched: FetchResult;
  /** Per binding: what was extracted and, when it can be written, the measurement. */
  extracted: Extracted[];
  writable: MeasurementInput[];
  context: WriteContext;
  existing: ExistingOf;
}

/** What a fetch and its extraction read of an integration, saved or not. */
type Definition = Pick<
  StoredIntegration,
  'id' | 'tenantId' | 'name' | 'url' | 'headers' | 'auth' | 'period' | 'bindings'
>;

/** A saved integration's credentials, or why they cannot be used. */
const secretsOf = async (deps: PullFetchDeps, stored: StoredIntegration) =>
  openSecrets(deps.secrets, stored, stored.sealedSecrets);

/**
 * Fetch, extract and check: everything a run does before its first write. `secrets` undefined: the
 * stored credentials did not open, and nothing is fetched.
 */
const evaluate = async (
  deps: PullFetchDeps,
  stored: Definition,
  secrets: PullSecrets | undefined,
  at: number,
): Promise<Evaluation> => {
  const context: WriteContext = {
    tenantId: stored.tenantId,
    source: { type: 'integration', id: stored.id, name: stored.name },
    at: new Date(at).toISOString(),
  };
  const fetched: FetchResult =
    secrets === undefined
      ? {
          ok: false,
          httpStatus: null,
          durationMs: 0,
          errorClass: 'auth',
          error: 'the stored credentials could not be opened: set them again',
        }
      : await fetchSource(
          { egress: deps.egress, tokens: deps.tokens, ...(deps.now ? { now: deps.now } : {}) },
          stored,
          secrets,
        );
  if (!fetched.ok) return { fetched, extracted: [], writable: [], context, existing: () => undefined };
  const extracted = extract(stored.bindings, stored.period, fetched.answer, at);
  const candidates = extracted.flatMap((e) => (e.measurement ? [e.measurement] : []));
  const targets = await readTargets(deps, stored.tenantId, candidates);
  const checked = extracted.map((e): Extracted => {
    if (!e.measurement) return e;
    const kpi = targets.kpis.get(e.binding.kpiId);
    if (!writableKpi(kpi, stored.tenantId, e.binding.kpiType)) {
      return { ...e, measurement: undefined, problem: KPI_PROBLEM };
    }
    if (kpi.archivedAt !== undefined)
      return { ...e, measurement: undefined, problem: archivedKpiMessage(kpi) };
    // The KPI's period may have changed since the integration was saved, or come from the answer.
    const placed = placeInPeriod(kpi, e.measurement, at);
    return placed.ok
      ? { ...e, measurement: placed.measurement }
      : { ...e, measurement: undefined, problem: `${placed.field}: ${placed.message}` };
  });
  return {
    fetched,
    extracted: checked,
    writable: checked.flatMap((e) => (e.measurement ? [e.measurement] : [])),
    context,
    existing: targets.existing,
  };
};

const bindingOf = (e: Extracted, result: RunBinding['result']): RunBinding => ({
  kpiId: e.binding.kpiId,
  kpiType: e.binding.kpiType,
  result,
  periodStart: e.periodStart,
  periodEnd: e.periodEnd,
  actual: e.actual,
  target: e.target,
  forecast: e.forecast,
  problem: e.problem,
});

export interface Preview {
  httpStatus: number | null;
  durationMs: number;
  errorClass: RunErrorClass | null;
  error: string | null;
  /** The source's JSON as shown (./answer.ts): cut to its limits, credentials redacted; null without one. */
  answer: unknown;
  answerTruncated: boolean;
  bindings: Omit<RunBinding, 'result'>[];
  measurements: PlannedMeasurement[];
}

/** What a preview answers of an evaluation: nothing stored, the schedule as it was. */
const previewOf = (
  { fetched, extracted, writable, context, existing }: Evaluation,
  secrets: PullSecrets | undefined,
): Preview => {
  const shown = fetched.ok
    ? shownAnswer(fetched.answer, [...fetched.sent, ...Object.values(secrets ?? {})])
    : { answer: null, truncated: false };
  return {
    httpStatus: fetched.httpStatus,
    durationMs: fetched.durationMs,
    errorClass: fetched.ok ? null : fetched.errorClass,
    error: fetched.ok ? null : fetched.error,
    answer: shown.answer,
    answerTruncated: shown.truncated,
    bindings: extracted.map((e) => {
      // Stryker disable next-line StringLiteral: the result is dropped here, a preview stores nothing
      const { result: _result, ...binding } = bindingOf(e, 'failed');
      return binding;
    }),
    measurements: planStore(writable, context, existing),
  };
};

/** Fetches and extracts a saved integration now, and answers what a run would write. */
export const previewIntegration = async (
  deps: PullFetchDeps,
  tenantId: string,
  id: string,
): Promise<Preview> => {
  const stored = await readIntegration(deps, tenantId, id);
  const secrets = await secretsOf(deps, stored);
  return previewOf(await evaluate(deps, stored, secrets, (deps.now ?? Date.now)()), secrets);
};

/** The id under which a preview of an unsaved definition fetches (its OAuth token cached under it). */
const UNSAVED_ID = 'unsaved';

/**
 * Fetches and extracts a definition that is not saved, as a preview of a saved one does: the same
 * checks of the definition as a creation (400 naming the field), the same egress guard and limits, the
 * credentials of the body used for this fetch only (never stored, never answered). A binding whose KPI
 * is not the tenant's, of its type, says so in its `problem` rather than failing the preview.
 */
export const previewDefinition = async (
  deps: PullFetchDeps,
  tenantId: string,
  input: CreatePullIntegration,
): Promise<Preview> => {
  await assertMayPull(deps, tenantId);
  const { bindings, period, view, secrets } = checkedDefinition(deps, input);
  const definition: Definition = {
    id: UNSAVED_ID,
    tenantId,
    name: input.name,
    url: input.url,
    headers: input.headers ?? {},
    auth: view,
    period,
    bindings,
  };
  return previewOf(await evaluate(deps, definition, secrets, (deps.now ?? Date.now)()), secrets);
};

/** The state after a run: failures counted, back-off, `failing` and `disabled` (./schedule.ts). */
export const stateAfter = (
  previous: Pick<
    StoredIntegration,
    'status' | 'consecutiveFailures' | 'failingSince' | 'disabledAt' | 'schedule'
  >,
  run: Pick<PullRun, 'id' | 'startedAt' | 'durationMs' | 'httpStatus' | 'outcome' | 'errorClass'>,
  finishedAt: number,
): RunState => {
  const lastRun = {
    id: run.id,
    startedAt: run.startedAt,
    durationMs: run.durationMs,
    httpStatus: run.httpStatus,
    outcome: run.outcome,
    errorClass: run.errorClass,
  };
  if (run.outcome !== 'failed') {
    return {
      status: 'active',
      consecutiveFailures: 0,
      failingSince: null,
      disabledAt: null,
      lastRun,
      nextRunAt: new Date(nextRunAfter(previous.schedule, finishedAt, 0)).toISOString(),
    };
  }
  const failures = previous.consecutiveFailures + 1;
  const failingSince = previous.failingSince ?? run.startedAt;
  const disabled =
    previous.status === 'disabled' ||
    (failures >= FAILING_AFTER && finishedAt - Date.parse(failingSince) >= DISABLE_AFTER_MS);
  return {
    status: disabled ? 'disabled' : failures >= FAILING_AFTER ? 'failing' : 'active',
    consecutiveFailures: failures,
    failingSince,
    disabledAt: disabled ? (previous.disabledAt ?? new Date(finishedAt).toISOString()) : null,
    lastRun,
    nextRunAt: disabled
      ? null
      : new Date(nextRunAfter(previous.schedule, finishedAt, failures)).toISOString(),
  };
};

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Runs an integration: evaluate, write, record the run, count it, and move the schedule on. A
 * scheduled run gives its claimed slot and is recorded only while the claim stands. When the run
 * disables the integration, the audit log and the tenant's webhooks (`integration.disabled`) say so,
 * once. Answers the run, or undefined when the slot's claim was gone (nothing recorded).
 */
export const executeRun = async (
  deps: PullRunDeps,
  stored: StoredIntegration,
  trigger: PullRun['trigger'],
  slot: string | null,
  actor: AuditContext = systemContext(PULL_SCHEDULER_ACTOR),
): Promise<PullRun | undefined> => {
  const now = deps.now ?? Date.now;
  const startedAt = now();
  const { fetched, extracted, writable, context, existing } = await evaluate(
    deps,
    stored,
    await secretsOf(deps, stored),
    startedAt,
  );
  const written = await storeMeasurements(deps.db, writable, context, existing);
  const results = new Map(written.map((w) => [w.measurement.kpiId, w.status]));
  const bindings = extracted.map((e) =>
    bindingOf(e, e.measurement ? (results.get(e.binding.kpiId) ?? 'failed') : 'failed'),
  );
  const stored_ = written.length;
  const outcome: RunOutcome =
    !fetched.ok || stored_ === 0 ? 'failed' : stored_ === stored.bindings.length ? 'stored' : 'partial';
  const finishedAt = now();
  const run: PullRun = {
    id: uuidv7(startedAt),
    integrationId: stored.id,
    tenantId: stored.tenantId,
    trigger,
    startedAt: new Date(startedAt).toISOString(),
    durationMs: Math.max(0, Math.round(finishedAt - startedAt)),
    httpStatus: fetched.httpStatus,
    outcome,
    errorClass: fetched.ok ? null : fetched.errorClass,
    error: fetched.ok
      ? outcome === 'failed'
        ? 'no binding gave a value that could be stored'
        : null
      : fetched.error,
    measurementsStored: stored_,
    bindings,
  };
  const recorded = await recordRunState(deps, stored, run, finishedAt, slot, actor);
  if (!recorded) return undefined;
  const { before, state } = recorded;
  await Promise.all([
    putRun(deps.db, run, Math.floor(finishedAt / 1000) + PULL_RETENTION_DAYS * 86_400),
    countRun(deps.db, stored.id, day(startedAt), {
      measurements: stored_,
      errorClass: run.errorClass,
      failed: outcome === 'failed',
    }),
  ]);
  logger.info('pull integration run', {
    tenantId: stored.tenantId,
    integrationId: stored.id,
    trigger,
    outcome,
    errorClass: run.errorClass,
    httpStatus: run.httpStatus,
    stored: stored_,
  });
  if (state.status === 'disabled' && before !== 'disabled') await announceDisabled(deps, stored, state);
  return run;
};

/** How often a manual run decides its state again when the integration's status changed meanwhile. */
const MAX_STATE_TRIES = 3;

/**
 * Writes a run's state (./run.ts `stateAfter`) and answers it with the status before, or undefined when
 * nothing was written (the integration deleted, or a scheduled run's claim ended). A state that
 * disables the integration is written with its `integration.disabled` event in one transaction, only
 * while the integration has the status the state was decided from: a scheduled run whose integration
 * changed meanwhile lost its claim with that change, and records nothing; a manual run decides again
 * from the integration as it is now.
 */
const recordRunState = async (
  deps: PullRunDeps,
  stored: StoredIntegration,
  run: PullRun,
  finishedAt: number,
  slot: string | null,
  context: AuditContext,
): Promise<{ before: StoredIntegration['status']; state: RunState } | undefined> => {
  let current = stored;
  for (let attempt = 0; attempt < MAX_STATE_TRIES; attempt++) {
    const state = stateAfter(current, run, finishedAt);
    if (state.status !== 'disabled' || current.status === 'disabled') {
      const before = await putRunState(deps.db, current, state, slot);
      return before === undefined ? undefined : { before, state };
    }
    const event = auditEvent(
      context,
      {
        type: 'integration.disabled',
        tenantId: current.tenantId,
        target: { type: 'integration', id: current.id },
        details: {
          ...integrationDetails(current),
          runId: run.id,
          failures: state.consecutiveFailures,
          failingSince: state.failingSince,
          lastErrorClass: run.errorClass,
        },
      },
      finishedAt,
    );
    const before = await putRunState(deps.db, current, state, slot, { event, ifStatus: current.status });
    if (before !== undefined) {
      logAuditEvent(event);
      return { before, state };
    }
    if (slot !== null) return undefined;
    const fresh = await getIntegration(deps.db, current.tenantId, current.id);
    if (!fresh) return undefined;
    current = fresh;
  }
  throw new Error(`Pull integration ${stored.id} kept changing; the run's state was not recorded.`);
};

/** `integration.disabled` to the tenant's webhooks, once per disabling (its audit event is the state's). */
const announceDisabled = async (deps: PullRunDeps, stored: StoredIntegration, state: RunState) => {
  try {
    await deps.publish({
      type: 'integration.disabled',
      tenantId: stored.tenantId,
      occurredAt: state.disabledAt as string,
      data: {
        integrationId: stored.id,
        name: stored.name,
        failures: state.consecutiveFailures,
        failingSince: state.failingSince,
        lastRun: state.lastRun,
      },
    });
  } catch (error) {
    // The integration is disabled either way; its audit event and its status say so.
    logger.warn('integration.disabled was not published', error as Error);
  }
};

/**
 * `POST …/run`: fetch and store now; counts as a run (a disabled integration that stores is active
 * again), recorded as `integration.run` in the caller's name once it is. NOT_FOUND when the
 * integration is gone, also when it is deleted while it runs.
 */
export const runNow = async (
  deps: PullRunDeps,
  tenantId: string,
  id: string,
  context: AuditContext = systemContext('service'),
): Promise<PullRun> => {
  const stored = await readIntegration(deps, tenantId, id);
  const run = await executeRun(deps, stored, 'manual', null, context);
  // Deleted while it ran: nothing was recorded, as for any integration that is gone.
  if (!run) throw notFound(id);
  const event = auditEvent(context, {
    type: 'integration.run',
    tenantId,
    target: { type: 'integration', id },
    details: {
      name: stored.name,
      runId: run.id,
      outcome: run.outcome,
      measurementsStored: run.measurementsStored,
    },
  });
  await putAuditEvent(deps.db, event);
  logAuditEvent(event);
  return run;
};

// ---------------------------------------------------------------------------------------------------
// The worker (the scheduler's side is ./scheduler.ts)

export type WorkerOutcome =
  | { kind: 'ran'; run: PullRun }
  | { kind: 'skipped'; reason: 'malformed' | 'gone' | 'not-claimed' | 'feature-off' };

/**
 * The worker's step for one message: the claimed slot's run. A message for an integration that is gone
 * or no longer holds this claim (a duplicate delivery, a PATCH meanwhile) does nothing. A tenant whose
 * plan lost the feature is not fetched; its integration waits for its next slot.
 */
export const runMessage = async (deps: PullRunDeps, body: string): Promise<WorkerOutcome> => {
  let message: RunMessage;
  try {
    message = runMessageSchema.parse(JSON.parse(body));
  } catch {
    logger.error('A pull queue message that names no integration was dropped.');
    return { kind: 'skipped', reason: 'malformed' };
  }
  const stored = await getIntegration(deps.db, message.tenantId, message.integrationId);
  if (!stored || stored.status === 'disabled') return { kind: 'skipped', reason: 'gone' };
  // A duplicate delivery, or a change since the claim: the slot is not this message's any more.
  if (stored.claimedSlot !== message.slot) return { kind: 'skipped', reason: 'not-claimed' };
  try {
    await assertMayPull(deps, stored.tenantId);
  } catch {
    const nextRunAt = new Date(nextSlot(stored.schedule, (deps.now ?? Date.now)())).toISOString();
    const { status, consecutiveFailures, failingSince, disabledAt, lastRun } = stored;
    await putRunState(
      deps.db,
      stored,
      { status, consecutiveFailures, failingSince, disabledAt, lastRun, nextRunAt },
      message.slot,
    );
    return { kind: 'skipped', reason: 'feature-off' };
  }
  const run = await executeRun(deps, stored, 'schedule', message.slot);
  return run ? { kind: 'ran', run } : { kind: 'skipped', reason: 'not-claimed' };
};
