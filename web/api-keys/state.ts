/**
 * The key page's state, the page that holds it, and what follows from it alone: a key's status in
 * words, who ended it, its scope, and which keys a roll ties together.
 */
import type {
  ApiKeyPage,
  ApiKeyRecentUsage,
  ApiKeyResponse,
  ApiKeyUsageResponse,
  CreatedApiKeyResponse,
} from '../shared/api-types';
import { pageDialog } from '../shared/dialog';
import { plural } from '../shared/format';
import { createPage, type PageState } from '../shared/shell';

type Plan = NonNullable<ApiKeyPage['plan']>;
type Actor = ApiKeyResponse['revokedBy'];
/**
 * A key as the page holds it: as listed, with its last 30 days of use, or as a create or roll answered
 * it, without them until the list is loaded again.
 */
export type Key = ApiKeyResponse & { usage?: ApiKeyRecentUsage };

/** A key's open usage panel: what its `GET /api-keys/{id}/usage` gave, or why it did not. */
export interface UsagePanel {
  loading: boolean;
  error: string | null;
  usage: ApiKeyUsageResponse | null;
}

export type Dialog =
  | {
      kind: 'create';
      busy: boolean;
      nameError: string | null;
      expiresError: string | null;
      error: string | null;
    }
  /** The raw key is in the state only while its dialog is open: the service never returns it again. */
  | { kind: 'reveal'; created: CreatedApiKeyResponse; rolled: Key | null; copied: string | null }
  | { kind: 'roll'; key: Key; busy: boolean; error: string | null }
  /** The addresses a key works from. */
  | { kind: 'sources'; key: Key; busy: boolean; error: string | null }
  /** `alsoStops`: the old key of a roll whose grace period revoking `key` ends, known before confirming. */
  | { kind: 'revoke'; key: Key; alsoStops: Key | null; busy: boolean; error: string | null };
export type DialogOf<K extends Dialog['kind']> = Extract<Dialog, { kind: K }>;

export interface Keys {
  /** Every key of the tenant, as last loaded; null until the first list arrived. */
  keys: Key[] | null;
  plan: Plan | null;
  /** KPI names by id, to show a key's scope; empty if they could not be loaded (ids are shown then). */
  kpiNames: Map<string, string>;
  loading: boolean;
  loadError: string | null;
  /** The row pointed out: the key a link named (`api-keys#key-<id>`), or the key just created. */
  highlighted: string | null;
  /** The keys whose usage panel is open, by id. */
  usage: Map<string, UsagePanel>;
  dialog: Dialog | null;
}

export type State = PageState<Keys>;

export const page = createPage<Keys>({
  name: 'api-keys',
  initial: {
    keys: null,
    plan: null,
    kpiNames: new Map(),
    loading: false,
    loadError: null,
    highlighted: null,
    usage: new Map(),
    dialog: null,
  },
});

export const openDialog = pageDialog(page);

export const NAME_MAX = 100;
/** Keys expiring within this many days say so in the list. */
const EXPIRY_WARNING_DAYS = 14;
export const PUSH_FEATURE = 'kpi_push_measurement';

/** "expires in 3 days" (or hours, or minutes) for an active key expiring within 14 days, else null. */
export const expiresSoon = (key: Key, now: number): string | null => {
  if (key.status !== 'active' || !key.expiresAt) return null;
  const left = Date.parse(key.expiresAt) - now;
  if (!(left > 0) || left > EXPIRY_WARNING_DAYS * 86_400_000) return null;
  if (left >= 86_400_000) return `expires in ${plural(Math.round(left / 86_400_000), 'day')}`;
  if (left >= 3_600_000) return `expires in ${plural(Math.round(left / 3_600_000), 'hour')}`;
  return `expires in ${plural(Math.max(1, Math.round(left / 60_000)), 'minute')}`;
};

export const actorText = (actor: Actor): string | null => {
  if (actor === null) return null;
  if (actor.type === 'user') return actor.email ?? 'a former user';
  if (actor.type === 'operator') return `operator ${actor.name}`;
  // A leaked key: where it was found tells its owner which file to clean up.
  return actor.url ? `GitHub secret scanning, found at ${actor.url}` : 'GitHub secret scanning';
};

/** A key counts against the plan while it is active and not rolled (its replacement holds the slot). */
export const holdsSlot = (key: Key) => key.status === 'active' && key.replacedBy === null;

/**
 * The old key of a roll that still works in its grace period, for its replacement `key`: revoking the
 * replacement ends that grace too (the service's rule, docs/api.md "Revoke").
 */
export const inGraceBefore = (key: Key, keys: Key[] | null): Key | null =>
  (key.replaces &&
    keys?.find(
      (other) =>
        other.id === key.replaces?.id && other.status === 'active' && other.replacedBy?.id === key.id,
    )) ||
  null;

/** A key as a button or heading names it: its name and prefix, since a roll's two keys share the name. */
export const keyLabel = (key: Key) => `${key.name} (${key.prefix})`;

export const scopeText = (kpiIds: string[] | null, kpiNames: Map<string, string>) => {
  if (kpiIds === null) return 'All KPIs';
  const names = kpiIds.map((id) => kpiNames.get(id) ?? id);
  return names.length <= 3
    ? names.join(', ')
    : `${names.slice(0, 2).join(', ')} and ${names.length - 2} more`;
};
