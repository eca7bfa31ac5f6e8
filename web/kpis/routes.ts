/**
 * The KPI page's routes: `?type=`, `?cycle=` and `?owner=` filter the list, `?archived` lists the
 * archived KPIs instead, `?sort=name` orders it by name, `?kpi=<id>` shows one KPI. They are the page's URL, so they survive a reload and work with Back.
 */
import type { KpiType } from '../../lib/domain/kpi';
import { loadCycles } from '../shared/load';
import { isListOf, listQueryOf, loadDetail, loadList } from './actions';
import { KPI_TYPES, page, type Route, SORTS, type Sort } from './state';

const route = (): Route => {
  const params = new URLSearchParams(location.search);
  const type = params.get('type');
  return {
    kpiId: params.get('kpi'),
    type: KPI_TYPES.includes(type as KpiType) ? (type as KpiType) : null,
    sort: params.get('sort') === 'name' ? 'name' : 'status',
    cycle: params.get('cycle') || null,
    owner: params.get('owner') || null,
    archived: params.has('archived'),
  };
};

/** The list's query: its filters and its order (status, the default, is left out). */
export const listSearch = ({
  type,
  sort,
  cycle,
  owner,
  archived,
}: Pick<Route, 'type' | 'sort' | 'cycle' | 'owner' | 'archived'>) => {
  const query = new URLSearchParams();
  if (type) query.set('type', type);
  if (cycle) query.set('cycle', cycle);
  if (owner) query.set('owner', owner);
  if (archived) query.set('archived', '');
  if (sort !== 'status') query.set('sort', sort);
  const search = query.toString();
  return search ? `?${search}` : '';
};

let cyclesLoaded = false;

/** Shows the current URL. `focus`: move focus to the new view's heading (after a click or Back). */
export const show = async (focus: boolean) => {
  const next = route();
  // An error belongs to the view it was said in; a list not loaded for this view loads again below.
  page.update({ route: next, listError: null });
  if (next.kpiId) {
    await loadDetail(next.kpiId, focus);
    return;
  }
  if (!cyclesLoaded) {
    cyclesLoaded = true;
    // The groups and the cycle filter are a nicety: without the cycles the list shows ungrouped.
    loadCycles().then(
      (cycles) => page.update({ cycles }),
      () => {
        cyclesLoaded = false;
      },
    );
  }
  const { list, lastKpiId } = page.state;
  const query = listQueryOf(next);
  if (!isListOf(list, query) && !(await loadList(query))) return;
  if (!focus) return;
  const from = lastKpiId
    ? document.querySelector<HTMLElement>(`#kpi-body tr[data-kpi-id="${CSS.escape(lastKpiId)}"] a`)
    : null;
  (from ?? document.getElementById('list-title'))?.focus();
};

export const follow = (event: MouseEvent, search: string) => {
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
  event.preventDefault();
  history.pushState(null, '', `${location.pathname}${search}`);
  void show(true);
};

export const filter = (event: Event) => {
  const value = (event.currentTarget as HTMLSelectElement).value;
  const type = KPI_TYPES.includes(value as KpiType) ? (value as KpiType) : null;
  history.replaceState(null, '', `${location.pathname}${listSearch({ ...page.state.route, type })}`);
  void show(false);
};

/** Another cycle, owner or archived choice: the list's URL changes, the focus stays on the control. */
export const refine = (change: Partial<Pick<Route, 'cycle' | 'owner' | 'archived'>>) => {
  history.replaceState(null, '', `${location.pathname}${listSearch({ ...page.state.route, ...change })}`);
  void show(false);
};

/** A new order: the KPIs loaded are sorted again, nothing is loaded; the focus stays on the control. */
export const sortBy = (event: Event) => {
  const sort: Sort = (event.currentTarget as HTMLSelectElement).value === 'name' ? 'name' : 'status';
  history.replaceState(null, '', `${location.pathname}${listSearch({ ...page.state.route, sort })}`);
  void show(false);
  page.announce(`Sorted by ${SORTS[sort].toLowerCase()}.`);
};
