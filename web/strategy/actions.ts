/**
 * What changes the strategy page's state: loading the KPIs and the cycles with their status counts;
 * creating and changing a KPI, setting its targets, archiving and restoring it; creating, changing
 * and deleting a cycle. A problem the API names a field of is shown on that field.
 */
import { utcDay } from '../../lib/domain/calendar';
import type { KpiDetailResponse, KpiOwnerPage, KpiPage, KpiTarget } from '../shared/api-types';
import { loadCycles, loadEvery, newestLoad } from '../shared/load';
import { ApiError, api, canEdit, describe, SessionEnded } from '../shared/shell';
import { focusById } from '../shared/view';
import { type Cycle, type FieldError, type KpiItem, openDialog, page } from './state';
import { fillRows, parsePastedTargets, targetRows, targetsBody } from './targets';

const fieldErrorsOf = (error: unknown): FieldError[] =>
  error instanceof ApiError ? (error.problem.errors ?? []) : [];

const loads = newestLoad(page);

/** A cycle with its KPIs' status counts (`GET /strategic-cycles/{id}`); the cycle alone if that fails. */
const withCounts = (cycle: Cycle) =>
  api<Cycle>('GET', `/strategic-cycles/${encodeURIComponent(cycle.id)}`).catch(() => cycle);

/** Whom the KPI form offers as owner, for those who may change KPIs; null (the form offers "You") if unread. */
const loadOwners = () =>
  canEdit(page.state.shell)
    ? loadEvery<KpiOwnerPage>('/kpi-owners?limit=100')
        .then((pages) => pages.flatMap((owners) => owners.items))
        .catch(() => null)
    : Promise.resolve(null);

/** The KPIs (the archived ones too while asked), the cycles with their counts and the possible owners. */
export const load = async () => {
  const wanted = loads();
  page.update({ loading: true, loadError: null });
  try {
    // `?archived=true` lists the archived KPIs instead of the live ones.
    const [kpis, cycles, owners] = await Promise.all([
      Promise.all([
        loadEvery<KpiPage>('/kpis?limit=1000'),
        page.state.archived ? loadEvery<KpiPage>('/kpis?limit=1000&archived=true') : [],
      ]).then((lists) => lists.flat()),
      loadCycles().then((cycles) => Promise.all(cycles.map(withCounts))),
      loadOwners(),
    ]);
    if (!wanted()) return;
    page.update({ kpis: kpis.flatMap((next) => next.items), cycles, owners, loading: false });
  } catch (error) {
    if (error instanceof SessionEnded || !wanted()) return;
    page.update({ loading: false, loadError: describe(error) });
  }
};

export const showArchived = (event: Event) => {
  page.update({ archived: (event.currentTarget as HTMLInputElement).checked });
  void load();
};

/**
 * The user is signed in: load, then open what the KPI page's link asks for (`?do=new`, or
 * `?kpi=<id>&do=edit|targets|archive|restore`); the URL then forgets it, so a reload does not repeat it.
 */
export const signedIn = async (interactive: boolean) => {
  const params = new URLSearchParams(location.search);
  const action = params.get('do');
  const kpiId = params.get('kpi');
  if (action === 'restore' || (kpiId && page.state.archived === false && action !== 'new')) {
    page.update({ archived: true });
  }
  await load();
  const kpi = page.state.kpis?.find((item) => item.id === kpiId);
  if (action) history.replaceState(null, '', location.pathname);
  if (action === 'new') openKpiForm(null);
  else if (kpi && action === 'edit') openKpiForm(kpi);
  else if (kpi && action === 'targets') await openTargets(kpi);
  else if (kpi && action === 'archive') openArchive(kpi);
  else if (kpi && action === 'restore') await restore(kpi);
  else if (interactive) focusById('cycles-title');
};

export const openCycleForm = (editing: Cycle | null) => {
  page.clearMessages();
  page.update({ dialog: { kind: 'cycle', editing, busy: false, error: null, fieldErrors: [] } });
  focusById('cycle-name');
};

const text = (form: FormData, name: string) => String(form.get(name) ?? '').trim();

export const submitCycle = async (event: SubmitEvent) => {
  event.preventDefault();
  const dialog = openDialog.of(page.state, 'cycle');
  if (!dialog) return;
  const form = new FormData(event.currentTarget as HTMLFormElement);
  const description = text(form, 'description');
  const body = {
    name: text(form, 'name'),
    startDate: text(form, 'startDate'),
    endDate: text(form, 'endDate'),
    ...(description ? { description } : dialog.editing?.description ? { description: null } : {}),
    ...(dialog.editing ? { status: text(form, 'status') } : {}),
  };
  openDialog.patch('cycle', { busy: true, error: null, fieldErrors: [] });
  try {
    const saved = dialog.editing
      ? await api<Cycle>('PATCH', `/strategic-cycles/${encodeURIComponent(dialog.editing.id)}`, body)
      : await api<Cycle>('POST', '/strategic-cycles', body);
    openDialog.closed('cycle');
    await load();
    page.announce(dialog.editing ? `Cycle “${saved.name}” saved.` : `Cycle “${saved.name}” created.`);
    focusById(`cycle-${saved.id}`);
  } catch (error) {
    if (error instanceof SessionEnded) return;
    openDialog.patch('cycle', { busy: false, error: describe(error), fieldErrors: fieldErrorsOf(error) });
  }
};

export const openDeleteCycle = (cycle: Cycle) => {
  page.clearMessages();
  page.update({ dialog: { kind: 'delete-cycle', cycle, busy: false, error: null } });
  focusById('delete-cycle-cancel');
};

/** A cycle with KPIs is not deleted: the API's 409 says how many, and the dialog shows it. */
export const confirmDeleteCycle = async () => {
  const dialog = openDialog.of(page.state, 'delete-cycle');
  if (!dialog) return;
  openDialog.patch('delete-cycle', { busy: true, error: null });
  try {
    await api<void>('DELETE', `/strategic-cycles/${encodeURIComponent(dialog.cycle.id)}`);
  } catch (error) {
    if (error instanceof SessionEnded) return;
    if (!(error instanceof ApiError && error.status === 404)) {
      openDialog.patch('delete-cycle', { busy: false, error: describe(error) });
      return;
    }
  }
  openDialog.closed('delete-cycle');
  await load();
  page.announce(`Cycle “${dialog.cycle.name}” deleted.`);
  focusById('cycles-title');
};

// ---------------------------------------------------------------------------------------------------
// A KPI: create, change, archive, restore

export const openKpiForm = (editing: KpiItem | null) => {
  page.clearMessages();
  page.update({ dialog: { kind: 'kpi', editing, busy: false, error: null, fieldErrors: [] } });
  focusById('kpi-name');
};

/** The form's fields as the API takes them; tolerance is typed in percent. */
const kpiFields = (form: FormData) => {
  const optional = (name: string) => text(form, name) || null;
  const tolerance = text(form, 'tolerance');
  const grace = text(form, 'graceHours');
  return {
    name: text(form, 'name'),
    type: text(form, 'type'),
    unit: optional('unit'),
    description: optional('description'),
    period: text(form, 'period'),
    direction: text(form, 'direction'),
    // A number the API refuses stays what was typed, so that its problem names the field.
    tolerance:
      tolerance === '' ? null : Number.isNaN(Number(tolerance)) ? tolerance : Number(tolerance) / 100,
    cadence: text(form, 'cadence'),
    graceHours: grace === '' ? null : Number.isNaN(Number(grace)) ? grace : Number(grace),
    cycleId: optional('cycleId'),
    ownerId: optional('ownerId'),
  };
};

/**
 * What the form sends: a new KPI gets the fields filled in; a change sends the fields that differ
 * from the KPI, a field emptied as null.
 */
export const kpiBody = (fields: ReturnType<typeof kpiFields>, editing: KpiItem | null) => {
  const entries = Object.entries(fields) as [keyof typeof fields, unknown][];
  if (!editing) return Object.fromEntries(entries.filter(([, value]) => value !== null));
  const before = editing as unknown as Record<string, unknown>;
  return Object.fromEntries(
    entries.filter(
      ([name, value]) =>
        !(value === null && (before[name] === undefined || before[name] === null)) && value !== before[name],
    ),
  );
};

export const submitKpi = async (event: SubmitEvent) => {
  event.preventDefault();
  const dialog = openDialog.of(page.state, 'kpi');
  if (!dialog) return;
  const body = kpiBody(kpiFields(new FormData(event.currentTarget as HTMLFormElement)), dialog.editing);
  if (dialog.editing && Object.keys(body).length === 0) {
    openDialog.closed('kpi');
    return;
  }
  openDialog.patch('kpi', { busy: true, error: null, fieldErrors: [] });
  try {
    const saved = dialog.editing
      ? await api<KpiItem>('PATCH', `/kpis/${encodeURIComponent(dialog.editing.id)}`, body)
      : await api<KpiItem>('POST', '/kpis', body);
    openDialog.closed('kpi');
    await load();
    page.announce(
      dialog.editing
        ? `KPI “${saved.name}” saved.`
        : `KPI “${saved.name}” created. Push to it with its id, ${saved.id}.`,
    );
    focusById(`kpi-${saved.id}`);
  } catch (error) {
    if (error instanceof SessionEnded) return;
    openDialog.patch('kpi', { busy: false, error: describe(error), fieldErrors: fieldErrorsOf(error) });
  }
};

export const openArchive = (kpi: KpiItem) => {
  page.clearMessages();
  page.update({ dialog: { kind: 'archive', kpi, busy: false, error: null } });
  focusById('archive-cancel');
};

export const confirmArchive = async () => {
  const dialog = openDialog.of(page.state, 'archive');
  if (!dialog) return;
  openDialog.patch('archive', { busy: true, error: null });
  try {
    await api<unknown>('DELETE', `/kpis/${encodeURIComponent(dialog.kpi.id)}`);
  } catch (error) {
    if (error instanceof SessionEnded) return;
    openDialog.patch('archive', { busy: false, error: describe(error) });
    return;
  }
  openDialog.closed('archive');
  await load();
  focusById('cycles-title');
  page.announce(`KPI “${dialog.kpi.name}” archived: pushes and pulls to it are refused.`);
};

/** Restores an archived KPI (`PATCH {"archived": false}`). */
export const restore = async (kpi: KpiItem) => {
  page.clearMessages();
  try {
    await api<unknown>('PATCH', `/kpis/${encodeURIComponent(kpi.id)}`, { archived: false });
  } catch (error) {
    if (!(error instanceof SessionEnded)) page.update({ loadError: describe(error) });
    return;
  }
  await load();
  page.announce(`KPI “${kpi.name}” restored.`);
};

// ---------------------------------------------------------------------------------------------------
// Targets

/** The Targets dialog of a KPI, with the targets it holds (`GET /kpis/{kpiId}`). */
export const openTargets = async (kpi: KpiItem) => {
  page.clearMessages();
  let targets: KpiTarget[] = [];
  try {
    const detail = await api<KpiDetailResponse & { targets?: KpiTarget[] }>(
      'GET',
      `/kpis/${encodeURIComponent(kpi.id)}?limit=1`,
    );
    targets = detail.targets ?? [];
  } catch (error) {
    if (error instanceof SessionEnded) return;
    page.update({ loadError: describe(error) });
    return;
  }
  const cycle = page.state.cycles?.find((c) => c.id === kpi.cycleId) ?? null;
  const rows = targetRows(kpi.period, targets, { cycle, today: utcDay(Date.now()) });
  page.update({
    dialog: {
      kind: 'targets',
      kpi,
      rows,
      version: 0,
      busy: false,
      error: null,
      fieldErrors: [],
      pasteProblems: [],
    },
  });
  focusById('targets-paste');
};

/** The values typed so far, read from the rows' inputs: they are the form's, until it is sent. */
const typedRows = (form: HTMLFormElement) => {
  const dialog = openDialog.of(page.state, 'targets');
  const data = new FormData(form);
  return (dialog?.rows ?? []).map((row) => ({
    ...row,
    value: String(data.get(`target-${row.periodStart}`) ?? ''),
  }));
};

/** A paste into the paste box (or a row) that holds tab- or line-separated rows fills the rows. */
export const pasteTargets = (event: ClipboardEvent) => {
  const dialog = openDialog.of(page.state, 'targets');
  const text = event.clipboardData?.getData('text/plain') ?? '';
  if (!dialog || !/[\t\n]/.test(text)) return;
  event.preventDefault();
  const form = (event.currentTarget as HTMLElement).closest('form');
  const rows = form ? typedRows(form) : dialog.rows;
  const { values, problems } = parsePastedTargets(dialog.kpi.period, text);
  openDialog.patch('targets', {
    rows: fillRows(rows, values),
    version: dialog.version + 1,
    pasteProblems: problems,
  });
  page.announce(
    `${values.size} target(s) filled in${problems.length ? `, ${problems.length} line(s) not read` : ''}.`,
  );
};

export const addTargetRow = (form: HTMLFormElement | null) => {
  const dialog = openDialog.of(page.state, 'targets');
  if (!dialog || !form) return;
  const rows = typedRows(form);
  const last = rows.at(-1);
  const after = targetRows(dialog.kpi.period, [], {
    cycle: null,
    today: last ? utcDay(Date.parse(`${last.periodEnd}T00:00:00Z`) + 86_400_000) : utcDay(Date.now()),
  })[0];
  if (after) openDialog.patch('targets', { rows: [...rows, after], version: dialog.version + 1 });
  if (after) focusById(`target-${after.periodStart}`);
};

export const submitTargets = async (event: SubmitEvent) => {
  event.preventDefault();
  const dialog = openDialog.of(page.state, 'targets');
  if (!dialog) return;
  const rows = typedRows(event.currentTarget as HTMLFormElement);
  const body = targetsBody(rows);
  if (!body.ok) {
    const row = rows[body.index];
    openDialog.patch('targets', {
      rows,
      error: body.message,
      fieldErrors: row ? [{ path: `row:${row.periodStart}`, message: body.message }] : [],
    });
    if (row) focusById(`target-${row.periodStart}`);
    return;
  }
  openDialog.patch('targets', { rows, busy: true, error: null, fieldErrors: [] });
  try {
    await api<unknown>('PUT', `/kpis/${encodeURIComponent(dialog.kpi.id)}/targets`, {
      targets: body.targets,
    });
    openDialog.closed('targets');
    focusById(`kpi-${dialog.kpi.id}`);
    page.announce(`${body.targets.length} target(s) of “${dialog.kpi.name}” saved.`);
  } catch (error) {
    if (error instanceof SessionEnded) return;
    // `targets[3].value` names the fourth period sent: shown on its row.
    const fieldErrors = fieldErrorsOf(error).map((field) => {
      const index = /^targets\[(\d+)\]/.exec(field.path)?.[1];
      const sent = index === undefined ? undefined : body.targets[Number(index)];
      return sent ? { path: `row:${sent.periodStart}`, message: field.message } : field;
    });
    openDialog.patch('targets', { busy: false, error: describe(error), fieldErrors });
  }
};
