/**
 * The strategy page's state, the page that holds it, and the words for periods, directions, cadences
 * and cycle statuses.
 */
import type { KpiPeriod, PeriodSpan } from '../../lib/domain/calendar';
import type { KpiCadence, KpiDirection } from '../../lib/domain/kpi';
import type { CycleResponse, CycleStatus, KpiOwnerPage, KpiPage, StatusCounts } from '../shared/api-types';
import { pageDialog } from '../shared/dialog';
import { createPage, type PageState } from '../shared/shell';

export type KpiItem = KpiPage['items'][number];
export type Cycle = CycleResponse;
export type KpiOwner = KpiOwnerPage['items'][number];

/** A field the API named in its problem, with what it said. */
export interface FieldError {
  path: string;
  message: string;
}

export type Dialog =
  | { kind: 'kpi'; editing: KpiItem | null; busy: boolean; error: string | null; fieldErrors: FieldError[] }
  | {
      kind: 'targets';
      kpi: KpiItem;
      /** A row per period, its target as typed ('' for none): web/strategy/targets.ts. */
      rows: (PeriodSpan & { value: string })[];
      /** A new number renders the rows' inputs anew: a paste replaced what they hold. */
      version: number;
      busy: boolean;
      error: string | null;
      fieldErrors: FieldError[];
      pasteProblems: string[];
    }
  | { kind: 'archive'; kpi: KpiItem; busy: boolean; error: string | null }
  | { kind: 'cycle'; editing: Cycle | null; busy: boolean; error: string | null; fieldErrors: FieldError[] }
  | { kind: 'delete-cycle'; cycle: Cycle; busy: boolean; error: string | null };
export type DialogOf<K extends Dialog['kind']> = Extract<Dialog, { kind: K }>;

export interface Strategy {
  /** The tenant's live KPIs, and its archived ones while `archived`; null until they loaded. */
  kpis: KpiItem[] | null;
  /** The tenant's cycles, each with its KPIs' status counts; null until they loaded. */
  cycles: Cycle[] | null;
  /** Whom a KPI may be given to (`GET /kpi-owners`); null for a VIEWER or when they could not be read. */
  owners: KpiOwner[] | null;
  archived: boolean;
  loading: boolean;
  loadError: string | null;
  dialog: Dialog | null;
}

export type State = PageState<Strategy>;

export const page = createPage<Strategy>({
  name: 'strategy',
  initial: {
    kpis: null,
    cycles: null,
    owners: null,
    archived: false,
    loading: false,
    loadError: null,
    dialog: null,
  },
});

export const openDialog = pageDialog(page);

export const PERIOD_LABELS: Record<KpiPeriod, string> = {
  day: 'Day',
  week: 'Week (ISO, Monday to Sunday)',
  month: 'Month',
  quarter: 'Quarter',
  year: 'Year',
};
export const DIRECTION_LABELS: Record<KpiDirection, string> = {
  higher_is_better: 'Higher is better',
  lower_is_better: 'Lower is better',
};
export const CADENCE_LABELS: Record<KpiCadence, string> = {
  none: 'None (never quiet)',
  daily: 'Daily',
  weekly: 'Weekly',
  monthly: 'Monthly',
};
export const CYCLE_STATUS_LABELS: Record<CycleStatus, string> = {
  planned: 'Planned',
  active: 'Active',
  closed: 'Closed',
};
/** A cycle's counts in words: on track, at risk, off track, no data (and the rarer two after them). */
export const COUNT_LABELS: Record<keyof StatusCounts, string> = {
  on_track: 'On track',
  at_risk: 'At risk',
  off_track: 'Off track',
  no_data: 'No data',
  no_target: 'No target',
  qualitative: 'Qualitative',
};
