/**
 * What loads the KPI page's data: the list a page at a time, one KPI with its newest periods (more on
 * request), archiving and restoring from the list, and the tenant's key names for the measurement table.
 */
import type {
  ApiKeyPage,
  ApiKeyResponse,
  KpiDetailResponse,
  KpiPage,
  KpiProjectionResponse,
} from '../shared/api-types';
import { plural } from '../shared/format';
import { NO_CYCLE } from '../shared/groups';
import { loadEvery, newestLoad } from '../shared/load';
import { api, describe, isProblem, SessionEnded } from '../shared/shell';
import { focusById } from '../shared/view';
import { type Detail, type ListQuery, page, type Route } from './state';

/** What the list asks the API for in a route: `?cycle=none` is filtered on the page, a cycle by the API. */
export const listQueryOf = ({ type, cycle, archived }: Route): ListQuery => ({
  type,
  cycleId: cycle && cycle !== NO_CYCLE ? cycle : null,
  archived,
});

/** The periods the detail opens on; each "Show more" loads as many again as are shown, up to a page's 1,000. */
const PERIODS = 12;

const listLoads = newestLoad(page);
const detailLoads = newestLoad(page);

/** Whether the list loaded is the one of this query. */
export const isListOf = (list: ListQuery | null, { type, cycleId, archived }: ListQuery) =>
  list !== null && list.type === type && list.cycleId === cycleId && list.archived === archived;

/** Loads a page of the list: the first of a query, or the next (`cursor`). True if it arrived. */
export const loadList = async (wantedList: ListQuery, cursor?: string): Promise<boolean> => {
  const { type, cycleId, archived } = wantedList;
  const wanted = listLoads();
  page.update({ listLoading: true, listError: null });
  try {
    const query = new URLSearchParams({ include: 'activity' });
    if (type) query.set('type', type);
    if (cycleId) query.set('cycleId', cycleId);
    if (archived) query.set('archived', 'true');
    if (cursor) query.set('cursor', cursor);
    const next = await api<KpiPage>('GET', `/kpis?${query}`);
    if (!wanted()) return false;
    const previous = cursor && isListOf(page.state.list, wantedList) ? (page.state.list?.items ?? []) : [];
    page.update({
      list: { ...wantedList, items: [...previous, ...next.items], nextCursor: next.nextCursor },
      listLoading: false,
    });
    return true;
  } catch (error) {
    if (!(error instanceof SessionEnded) && wanted())
      page.update({ listLoading: false, listError: describe(error) });
    return false;
  }
};

export const more = async () => {
  const { list } = page.state;
  if (!list?.nextCursor) return;
  const shown = new Set(list.items.map((kpi) => kpi.id));
  // Keyboard users continue at the first new KPI in the list's order.
  if (await loadList(list, list.nextCursor)) {
    const rows = document.querySelectorAll<HTMLElement>('#kpi-body tr[data-kpi-id]');
    const first = Array.from(rows).find((row) => !shown.has(row.dataset.kpiId ?? ''));
    first?.querySelector<HTMLElement>('a.kpi-name')?.focus();
  }
};

/** Retrying keeps the keyboard in the section: the button goes away while the list loads. */
export const retryList = () => {
  focusById('list-title');
  const { list, route } = page.state;
  const query = listQueryOf(route);
  void (isListOf(list, query) && list?.nextCursor ? more() : loadList(query));
};

/** The tenant's keys by id (any role may read them); null if they could not be loaded. */
const loadKeyNames = async (): Promise<Map<string, ApiKeyResponse> | null> => {
  try {
    const pages = await loadEvery<ApiKeyPage>('/api-keys?limit=1000');
    return new Map(pages.flatMap((keys) => keys.items.map((key) => [key.id, key] as const)));
  } catch {
    // Names are a nicety: the prefixes still identify the keys. They are tried again with the next KPI.
    return null;
  }
};

/** The KPI's projection; null if it could not be loaded: the measurements still show. */
const loadProjection = (kpiId: string): Promise<KpiProjectionResponse | null> =>
  api<KpiProjectionResponse>('GET', `/kpis/${encodeURIComponent(kpiId)}/projection`).catch((error) => {
    if (error instanceof SessionEnded) throw error;
    return null;
  });

/** A page of the KPI's periods, newest first: what the chart shows costs what it reads, whatever the KPI holds. */
const periodsPage = (kpiId: string, limit: number, cursor = '') =>
  api<KpiDetailResponse>(
    'GET',
    `/kpis/${encodeURIComponent(kpiId)}?order=newest&limit=${limit}${cursor && `&cursor=${encodeURIComponent(cursor)}`}`,
  );

/** The KPI with its last periods, and its projection. */
const loadMeasurements = async (kpiId: string): Promise<Detail> => {
  const [{ measurements, nextCursor, ...kpi }, projection] = await Promise.all([
    periodsPage(kpiId, PERIODS),
    loadProjection(kpiId),
  ]);
  return { kpi, measurements: measurements.reverse(), nextCursor, projection };
};

/** The periods before those shown, as many again as are shown. */
export const morePeriods = async () => {
  const { detail } = page.state;
  if (!detail?.nextCursor) return;
  const wanted = detailLoads();
  page.update({ detailLoading: true, detailError: null });
  try {
    const older = await periodsPage(
      detail.kpi.id,
      Math.min(detail.measurements.length, 1000),
      detail.nextCursor,
    );
    if (!wanted()) return;
    const measurements = [...older.measurements.reverse(), ...detail.measurements];
    page.update({ detail: { ...detail, measurements, nextCursor: older.nextCursor }, detailLoading: false });
    page.announce(`${plural(measurements.length, 'period')} shown.`);
  } catch (error) {
    if (!(error instanceof SessionEnded) && wanted())
      page.update({ detailLoading: false, detailError: describe(error) });
  }
};

/**
 * Archives (DELETE) or restores (PATCH) a KPI in the list; it then leaves the list it no longer belongs
 * to. Reversible either way, so without a confirmation.
 */
export const setArchived = async (kpi: { id: string; name: string }, archived: boolean) => {
  const path = `/kpis/${encodeURIComponent(kpi.id)}`;
  try {
    await (archived ? api('DELETE', path) : api('PATCH', path, { archived: false }));
    const { list } = page.state;
    if (list) page.update({ list: { ...list, items: list.items.filter((item) => item.id !== kpi.id) } });
    focusById('list-title');
    page.announce(`${kpi.name} ${archived ? 'archived' : 'restored'}.`);
  } catch (error) {
    if (!(error instanceof SessionEnded)) page.announce(describe(error));
  }
};

export const loadDetail = async (kpiId: string, focus: boolean) => {
  const wanted = detailLoads();
  page.update({
    detail: null,
    detailLoading: true,
    detailError: null,
    detailMissing: false,
    cursor: null,
    lastKpiId: kpiId,
  });
  try {
    const [detail, keyNames] = await Promise.all([
      loadMeasurements(kpiId),
      page.state.keyNames ?? loadKeyNames(),
    ]);
    if (!wanted()) return;
    page.update({ detail, keyNames, detailLoading: false });
  } catch (error) {
    if (error instanceof SessionEnded || !wanted()) return;
    page.update({
      detailLoading: false,
      detailError: describe(error),
      detailMissing: isProblem(error, 'not-found'),
    });
  }
  if (focus) focusById('detail-title');
};

export const retryDetail = () => {
  focusById('detail-title');
  const { kpiId } = page.state.route;
  if (kpiId) void loadDetail(kpiId, false);
};
