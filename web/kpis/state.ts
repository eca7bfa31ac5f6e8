/**
 * The KPI page's state, the page that holds it, and the words for KPI types, statuses and orders.
 */
import type { KpiType } from '../../lib/domain/kpi';
import type {
  ApiKeyResponse,
  CycleResponse,
  KpiDetailResponse,
  KpiPage,
  KpiProjectionResponse,
  KpiStatusResponse,
  KpiTarget,
} from '../shared/api-types';
import { createPage, type PageState } from '../shared/shell';

export type KpiItem = KpiPage['items'][number];
export type Measurement = KpiDetailResponse['measurements'][number];
export type Point = Pick<Measurement, 'periodStart' | 'periodEnd' | 'actual' | 'target' | 'forecast'>;
type StatusValue = NonNullable<KpiStatusResponse>['value'];
/** The list's order: by status, the KPIs furthest from their target first, or by name. */
export type Sort = 'status' | 'name';

/** One KPI with its newest periods loaded, in period order. */
export interface Detail {
  kpi: Omit<KpiDetailResponse, 'measurements' | 'nextCursor'> & { targets?: KpiTarget[] };
  measurements: Measurement[];
  /** Where the older periods continue; undefined once every period is loaded. */
  nextCursor: string | undefined;
  /** Where the KPI is heading; null when it could not be loaded. */
  projection: KpiProjectionResponse | null;
}
export type Projection = KpiProjectionResponse;
export type ProjectedPeriod = Projection['periods'][number];

/** What the list asks the API for: the type, the cycle, and the archived KPIs instead of the live ones. */
export interface ListQuery {
  type: KpiType | null;
  cycleId: string | null;
  archived: boolean;
}

export interface Kpis {
  /**
   * What the URL asks for: `?type=`, `?cycle=` (a cycle's id, or `none`) and `?owner=` (a user's id, or
   * `none`) filter the list, `?archived` lists the archived KPIs instead of the live ones, `?kpi=` shows one KPI.
   */
  route: {
    kpiId: string | null;
    type: KpiType | null;
    sort: Sort;
    cycle: string | null;
    owner: string | null;
    archived: boolean;
  };
  /** The KPIs loaded for a query; shown while the route asks for that query. */
  list: (ListQuery & { items: KpiItem[]; nextCursor: string | undefined }) | null;
  listLoading: boolean;
  listError: string | null;
  /** The KPI of the route, once loaded. */
  detail: Detail | null;
  detailLoading: boolean;
  detailError: string | null;
  /** The detail's KPI does not exist (404): trying again cannot help. */
  detailMissing: boolean;
  /** The tenant's keys by id, for the names in the measurement table; null until they loaded. */
  keyNames: Map<string, ApiKeyResponse> | null;
  /** The period under the chart's cursor (an index of the measurements). */
  cursor: number | null;
  /** The KPI shown last: back in the list, focus returns to its link. */
  lastKpiId: string | null;
  /** The tenant's cycles, for the list's groups and filter; empty until they loaded. */
  cycles: CycleResponse[];
}

export type Route = Kpis['route'];
export type State = PageState<Kpis>;

export const page = createPage<Kpis>({
  name: 'kpis',
  initial: {
    route: {
      kpiId: null,
      type: null,
      sort: 'status',
      cycle: null,
      owner: null,
      archived: false,
    },
    list: null,
    listLoading: false,
    listError: null,
    detail: null,
    detailLoading: false,
    detailError: null,
    detailMissing: false,
    keyNames: null,
    cursor: null,
    lastKpiId: null,
    cycles: [],
  },
});

export { KPI_TYPES, TYPE_LABELS } from '../shared/kpi-types';

/** A status in words: shown as text in a coloured badge, never as a colour alone. */
export const STATUS_LABELS: Record<StatusValue, string> = {
  off_track: 'Off track',
  at_risk: 'At risk',
  on_track: 'On track',
  no_target: 'No target',
  no_data: 'No data',
};
/** The status order: the KPIs that need attention first, those without a status (qualitative) last. */
export const STATUS_ORDER = Object.keys(STATUS_LABELS) as StatusValue[];
export const SORTS: Record<Sort, string> = { status: 'Status, off track first', name: 'Name' };
