/**
 * The integration page's state, the page that holds it, and the words for schedules and
 * authentications.
 */
import type {
  KpiPage,
  PullIntegrationResponse,
  PullPreviewResponse,
  PullRunResponse,
} from '../shared/api-types';
import { pageDialog } from '../shared/dialog';
import { createPage, type PageState } from '../shared/shell';

export type Integration = PullIntegrationResponse;
export type AuthType = Integration['auth']['type'];
export type Every = Integration['schedule']['every'];
/** A KPI as a binding names it. */
export type KpiOption = Pick<KpiPage['items'][number], 'id' | 'name' | 'type'>;

/** The open panel of one integration: its preview and its run log. */
export interface Panel {
  id: string;
  previewing: boolean;
  preview: PullPreviewResponse | null;
  running: boolean;
  runs: PullRunResponse[] | null;
  error: string | null;
}

/** The form's structure; the values typed stay in the form until it is sent. */
export interface FormDialog {
  kind: 'form';
  editing: Integration | null;
  authType: AuthType;
  every: Every;
  /** Keys of the binding rows (a row keeps its typed values while others are added or removed). */
  rows: number[];
  busy: boolean;
  error: string | null;
  fieldErrors: { path: string; message: string }[];
  /** A preview of the definition as typed (not saved), its answer shown to pick paths from. */
  previewing: boolean;
  preview: PullPreviewResponse | null;
  /** The binding field a clicked value's path goes into: the path field focused last. */
  pathTarget: { key: number; field: PathField };
}
export type Dialog =
  | FormDialog
  | { kind: 'delete'; integration: Integration; busy: boolean; error: string | null };
export type DialogOf<K extends Dialog['kind']> = Extract<Dialog, { kind: K }>;

export interface Pulls {
  items: Integration[] | null;
  /** Where the list goes on: more integrations than the pages loaded so far; null at its end. */
  nextCursor: string | null;
  kpis: KpiOption[];
  loading: boolean;
  loadError: string | null;
  /** The plan lacks kpi_api_integration: the page says so instead of a list. */
  featureOff: boolean;
  panel: Panel | null;
  dialog: Dialog | null;
}

export type State = PageState<Pulls>;

export const page = createPage<Pulls>({
  name: 'integrations',
  initial: {
    items: null,
    nextCursor: null,
    kpis: [],
    loading: false,
    loadError: null,
    featureOff: false,
    panel: null,
    dialog: null,
  },
});

export const openDialog = pageDialog(page);

export const FEATURE = 'kpi_api_integration';
export const EVERY_LABELS: Record<Every, string> = {
  '15m': 'every 15 minutes',
  hour: 'every hour',
  day: 'every day',
  week: 'every week (Mondays)',
  month: 'every month (the 1st)',
};
export const AUTH_LABELS: Record<AuthType, string> = {
  none: 'None',
  bearer: 'Bearer token',
  header: 'API key header',
  basic: 'Basic (user name and password)',
  oauth2_client_credentials: 'OAuth 2.0 client credentials',
};
export const TIMED: Every[] = ['day', 'week', 'month'];

/** The binding fields a path goes into. */
export const PATH_FIELDS = ['actual', 'target', 'forecast'] as const;
export type PathField = (typeof PATH_FIELDS)[number];
export const PATH_FIELD_LABELS: Record<PathField, string> = {
  actual: 'Actual',
  target: 'Target',
  forecast: 'Forecast',
};
