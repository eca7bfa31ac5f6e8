/**
 * The API key management page (spec 2.7, 3; served at /platform/api-keys by functions/api-keys-page.ts).
 * One state, rendered by lit-html: the list, each key's status and use, the plan, loading and errors,
 * and the dialogs are all derived from it, so an action cannot leave one row or count stale. Each key
 * shows its last 30 days (`usage` of `GET /api-keys`) as a bar chart drawn by uPlot, the library of the
 * KPI page's charts; its Usage button opens the refusals by reason (`GET /api-keys/{id}/usage`).
 * Sign-in, session, API calls and navigation are shared with the KPI page (web/shared/shell.ts).
 */
import { html, nothing } from 'lit-html';
import { AsyncDirective, directive, type ElementPart } from 'lit-html/async-directive.js';
import { repeat } from 'lit-html/directives/repeat.js';
import uPlot from 'uplot';
import type {
  ApiKeyPage,
  ApiKeyRecentUsage,
  ApiKeyResponse,
  ApiKeyUsageResponse,
  CreatedApiKeyResponse,
  KpiPage,
  RevokedApiKeyResponse,
  RolledApiKeyResponse,
} from './shared/api-types';
import { ApiError, api, createPage, describe, isAdmin, type PageState, SessionEnded } from './shared/shell';
import {
  dateOnly,
  focusById,
  loadFailed,
  loadingNotice,
  message,
  modal,
  timeCell,
  timeOnly,
} from './shared/view';

type Plan = NonNullable<ApiKeyPage['plan']>;
type Actor = ApiKeyResponse['revokedBy'];
/**
 * A key as the page holds it: as listed, with its last 30 days of use, or as a create or roll answered
 * it, without them until the list is loaded again.
 */
type Key = ApiKeyResponse & { usage?: ApiKeyRecentUsage };
type Refusal = keyof ApiKeyUsageResponse['totals']['refused'];

/** A key's open usage panel: what its `GET /api-keys/{id}/usage` gave, or why it did not. */
interface UsagePanel {
  loading: boolean;
  error: string | null;
  usage: ApiKeyUsageResponse | null;
}

type Dialog =
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
  /** `alsoStops`: the old key of a roll whose grace period revoking `key` ends, known before confirming. */
  | { kind: 'revoke'; key: Key; alsoStops: Key | null; busy: boolean; error: string | null };
type DialogOf<K extends Dialog['kind']> = Extract<Dialog, { kind: K }>;

interface Keys {
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

type State = PageState<Keys>;

const NAME_MAX = 100;
/** Keys expiring within this many days say so in the list. */
const EXPIRY_WARNING_DAYS = 14;
const PUSH_FEATURE = 'kpi_push_measurement';

const plural = (count: number, unit: string) => `${count} ${unit}${count === 1 ? '' : 's'}`;

/** "expires in 3 days" (or hours, or minutes) for an active key expiring within 14 days, else null. */
const expiresSoon = (key: Key, now: number): string | null => {
  if (key.status !== 'active' || !key.expiresAt) return null;
  const left = Date.parse(key.expiresAt) - now;
  if (!(left > 0) || left > EXPIRY_WARNING_DAYS * 86_400_000) return null;
  if (left >= 86_400_000) return `expires in ${plural(Math.round(left / 86_400_000), 'day')}`;
  if (left >= 3_600_000) return `expires in ${plural(Math.round(left / 3_600_000), 'hour')}`;
  return `expires in ${plural(Math.max(1, Math.round(left / 60_000)), 'minute')}`;
};

const actorText = (actor: Actor): string | null => {
  if (actor === null) return null;
  if (actor.type === 'user') return actor.email ?? 'a former user';
  if (actor.type === 'operator') return `operator ${actor.name}`;
  // A leaked key: where it was found tells its owner which file to clean up.
  return actor.url ? `GitHub secret scanning, found at ${actor.url}` : 'GitHub secret scanning';
};

/** A key counts against the plan while it is active and not rolled (its replacement holds the slot). */
const holdsSlot = (key: Key) => key.status === 'active' && key.replacedBy === null;

/**
 * The old key of a roll that still works in its grace period, for its replacement `key`: revoking the
 * replacement ends that grace too (the service's rule, docs/api.md "Revoke").
 */
const inGraceBefore = (key: Key, keys: Key[] | null): Key | null =>
  (key.replaces &&
    keys?.find(
      (other) =>
        other.id === key.replaces?.id && other.status === 'active' && other.replacedBy?.id === key.id,
    )) ||
  null;

/** A key as a button or heading names it: its name and prefix, since a roll's two keys share the name. */
const keyLabel = (key: Key) => `${key.name} (${key.prefix})`;

const scopeText = (kpiIds: string[] | null, kpiNames: Map<string, string>) => {
  if (kpiIds === null) return 'All KPIs';
  const names = kpiIds.map((id) => kpiNames.get(id) ?? id);
  return names.length <= 3
    ? names.join(', ')
    : `${names.slice(0, 2).join(', ')} and ${names.length - 2} more`;
};

// ---------------------------------------------------------------------------------------------------
// A key's use: its last 30 days in the row, and the refusals by reason in its usage panel

const countFormat = new Intl.NumberFormat();
const percentFormat = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 0 });
/** Usage days are UTC calendar dates: shown as such, not moved into the viewer's time zone. */
const utcDay = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });

/** The chart's colours: each has at least 3:1 contrast on white (WCAG 1.4.11); the text says the same. */
const USAGE_COLORS = { requests: '#0b5cad', refused: '#b42318' } as const;
const USAGE_CHART = { width: 120, height: 32 } as const;

const requestsText = (count: number) => `${countFormat.format(count)} request${count === 1 ? '' : 's'}`;

/**
 * A row's requests as the page counts them. A refusal that comes before the rate counter (a plan
 * without push) is among the refusals but not among the requests, so the requests are at least the
 * refusals: a share never exceeds 100 %.
 */
const requestsOf = (row: { requests: number; refused: number }) => Math.max(row.requests, row.refused);

/**
 * "8% refused"; never "0%" for a refusal, nor "100%" while some were accepted, so that a rare refusal
 * or a rare success is not rounded away. Null without requests.
 */
const refusalShare = (refused: number, requests: number): string | null => {
  if (requests === 0) return null;
  const share = refused / requests;
  if (refused > 0 && share < 0.005) return `<${percentFormat.format(0.01)}`;
  if (refused < requests && share > 0.995) return `>${percentFormat.format(0.99)}`;
  return percentFormat.format(share);
};

type UsageDays = ApiKeyRecentUsage['days'];

/** The bar chart's data: each day's requests, and the refused ones drawn over them. */
const usageData = (days: UsageDays): uPlot.AlignedData => [
  days.map((_, i) => i),
  days.map(requestsOf),
  days.map((day) => day.refused),
];

const usageChartOptions = (days: UsageDays): uPlot.Options => {
  const bars = uPlot.paths.bars?.({ size: [0.75, Number.POSITIVE_INFINITY], gap: 1 });
  const series = (color: string): uPlot.Series => ({
    stroke: color,
    fill: color,
    width: 0,
    paths: bars,
    points: { show: false },
  });
  return {
    ...USAGE_CHART,
    padding: [2, 0, 0, 0],
    legend: { show: false },
    cursor: { show: false },
    select: { show: false, left: 0, top: 0, width: 0, height: 0 },
    // One slot per day, today's on the right; a day with one request is a full bar only in an idle month.
    scales: {
      x: { time: false, range: [-0.5, days.length - 0.5] },
      y: { range: (_u, _min, max) => [0, Math.max(1, max)] },
    },
    axes: [{ show: false }, { show: false }],
    series: [{}, series(USAGE_COLORS.requests), series(USAGE_COLORS.refused)],
  };
};

/**
 * `<div ${usageChart(days)}>`: uPlot's bars of a key's days in that element, drawn again when the days
 * change and destroyed when lit-html removes the element.
 */
class UsageChartDirective extends AsyncDirective {
  private drawn: UsageDays | null = null;
  private plot: uPlot | null = null;

  render(_days: UsageDays) {
    return nothing;
  }

  override update(part: ElementPart, [days]: [UsageDays]) {
    if (days !== this.drawn) {
      this.drawn = days;
      const element = part.element as HTMLElement;
      // The element is in the document once the render that made it is done.
      queueMicrotask(() => {
        if (this.drawn !== days || !this.isConnected) return;
        this.plot?.destroy();
        this.plot = new uPlot(usageChartOptions(days), usageData(days), element);
      });
    }
    return nothing;
  }

  protected override disconnected() {
    this.plot?.destroy();
    this.plot = null;
    this.drawn = null;
  }
}

const usageChart = directive(UsageChartDirective);

/** "12 requests in the last 30 days, 1 refused": the chart's text alternative. */
const usageSummary = (usage: ApiKeyRecentUsage) => {
  const requests = requestsOf(usage);
  if (requests === 0) return `No requests in the last ${usage.days.length} days`;
  return `${requestsText(requests)} in the last ${usage.days.length} days, ${countFormat.format(usage.refused)} refused`;
};

const usageToggle = (state: State, key: Key) => {
  const open = state.usage.has(key.id);
  return html`<button type="button" class="usage-toggle" aria-expanded=${open ? 'true' : 'false'} aria-controls=${open ? `usage-${key.id}` : nothing} aria-label="Usage of ${keyLabel(key)}" @click=${() => toggleUsage(key)}>Usage</button>`;
};

/** The last 30 days: the chart, the requests and the refusal share as text, and the Usage button. */
const usageCell = (state: State, key: Key) => {
  const { usage } = key;
  if (!usage) {
    return html`<td data-label="Last 30 days" class="usage-cell"><span class="note">No requests yet</span>${usageToggle(state, key)}</td>`;
  }
  const requests = requestsOf(usage);
  const share = refusalShare(usage.refused, requests);
  return html`<td data-label="Last 30 days" class="usage-cell">
    <div class="usage">
      <div class="usage-chart" role="img" aria-label=${usageSummary(usage)} ${usageChart(usage.days)}></div>
      <p class="usage-figures">
        <span class="requests">${requestsText(requests)}</span>
        <span class="refusal-share">${share === null ? '—' : `${share} refused`}</span>
      </p>
    </div>
    ${usageToggle(state, key)}
  </td>`;
};

/** Where a request came from: the address and the User-Agent, cut to the cell; `title` has both whole. */
const sourceView = (ip: string | null, userAgent: string | null) =>
  ip === null && userAgent === null
    ? nothing
    : html`<span class="source" title=${[ip, userAgent].filter(Boolean).join(' · ')}>${
        ip ? html`<code class="source-ip">${ip}</code>` : nothing
      }${userAgent ? html`<span class="source-agent">${userAgent}</span>` : nothing}</span>`;

const lastRequestCell = (key: Key) =>
  html`<td data-label="Last request" class="last-request">${
    key.usage?.lastRequestAt
      ? html`${timeCell(key.usage.lastRequestAt, '—')}${sourceView(key.usage.lastSourceIp, key.usage.lastUserAgent)}`
      : 'None in 30 days'
  }</td>`;

/** Refusal reasons in the service's words, for people. */
const REFUSALS: Record<Refusal, { label: string; hint: string }> = {
  authentication: { label: 'Authentication', hint: 'revoked or expired key, or inactive organization' },
  scope: { label: 'Scope', hint: 'a KPI outside the key’s KPIs' },
  rateLimit: { label: 'Rate limit', hint: 'too many requests in a minute' },
  validation: { label: 'Validation', hint: 'an invalid body, or a KPI that is not your organization’s' },
  featureOff: { label: 'Feature off', hint: 'the plan does not include pushing measurements' },
};
const REFUSAL_ORDER = Object.keys(REFUSALS) as Refusal[];

const usageDetail = ({ from, to, totals }: ApiKeyUsageResponse) => {
  const refused = REFUSAL_ORDER.reduce((sum, reason) => sum + totals.refused[reason], 0);
  // As in the row: the list counts refused authentications among the requests, the rate counter not.
  const requests = Math.max(totals.requests + totals.refused.authentication, refused);
  const figure = (id: string, label: string, value: number) =>
    html`<div data-figure=${id}><dt>${label}</dt><dd>${countFormat.format(value)}</dd></div>`;
  return html`<p class="hint">${utcDay.format(new Date(`${from}T00:00:00Z`))} – ${utcDay.format(new Date(`${to}T00:00:00Z`))} (UTC days)</p>
    <dl class="usage-totals">
      ${figure('requests', 'Requests', requests)}
      ${figure('accepted', 'Accepted', totals.accepted)}
      ${figure('measurements', 'Measurements stored', totals.measurements)}
      ${figure('refused', 'Refused', refused)}
    </dl>${
      requests > totals.accepted + refused
        ? html`<p id="usage-other" class="hint">${countFormat.format(requests - totals.accepted - refused)} neither accepted nor refused: dry runs, or requests that failed on the service’s side.</p>`
        : nothing
    }
    <h4>Refusals by reason</h4>
    <dl class="refusals">${REFUSAL_ORDER.map(
      (reason) =>
        html`<div data-reason=${reason} ?data-none=${totals.refused[reason] === 0}>
          <dt>${REFUSALS[reason].label} <span class="hint">${REFUSALS[reason].hint}</span></dt>
          <dd>${countFormat.format(totals.refused[reason])}</dd>
        </div>`,
    )}</dl>
    <p class="usage-last">${
      totals.lastRequestAt
        ? html`Last request ${timeCell(totals.lastRequestAt, '—')}${
            totals.lastSourceIp ? html` from <code>${totals.lastSourceIp}</code>` : nothing
          }${totals.lastUserAgent ? html`, User-Agent <code class="agent">${totals.lastUserAgent}</code>` : nothing}`
        : 'No requests in this period.'
    }</p>`;
};

/** The row under a key's row while its usage panel is open. */
const usageRow = (state: State, key: Key, columns: number) => {
  const panel = state.usage.get(key.id);
  if (!panel) return nothing;
  return html`<tr class="usage-row" data-usage-of=${key.id}>
    <td colspan=${columns}>
      <section id="usage-${key.id}" class="usage-panel" aria-labelledby="usage-title-${key.id}" aria-busy=${panel.loading ? 'true' : nothing}>
        <h3 id="usage-title-${key.id}" tabindex="-1">Usage of “${key.name}” <code>${key.prefix}</code></h3>
        ${panel.error ? loadFailed(`usage-error-${key.id}`, 'The usage', panel.error, () => retryUsage(key.id)) : nothing}
        ${panel.loading ? loadingNotice(`usage-loading-${key.id}`, 'Loading the usage…') : nothing}
        ${panel.usage ? usageDetail(panel.usage) : nothing}
      </section>
    </td>
  </tr>`;
};

// ---------------------------------------------------------------------------------------------------
// The view

/**
 * "2 of 3 keys used", the push warning, and why Create is disabled, from the list and the plan. While a
 * rolled key works in its grace period the list shows more active keys than the count: the count says
 * why, where it stands.
 */
const planView = (state: State, keys: Key[]) => {
  const { plan } = state;
  if (!plan) return { usage: null, pushWarning: null, limit: null };
  const used = keys.filter(holdsSlot).length;
  const max = plan.apiKeyLimit;
  const rolling = keys.some((key) => key.status === 'active' && key.replacedBy !== null);
  return {
    usage: `${
      max === null
        ? `${plural(used, 'key')} in use · unlimited on the ${plan.name} plan`
        : `${used} of ${max} keys used on the ${plan.name} plan`
    }${rolling ? '; a rolled key and its replacement count as one until the old key stops working' : ''}`,
    pushWarning: plan.features.includes(PUSH_FEATURE)
      ? null
      : `Your organization’s ${plan.name} plan does not include pushing measurements (${PUSH_FEATURE}). ` +
        'Keys can be created, but every push with them is refused until the plan is upgraded.',
    // Said next to the disabled button before the admin types anything.
    limit:
      isAdmin(state.shell) && max !== null && used >= max
        ? `All ${max} keys of the ${plan.name} plan are in use. Revoke a key, or upgrade the plan, to create ` +
          'another. Rolling a key does not need a free slot.'
        : null,
  };
};

/**
 * When an active key was created, under its name: a day is enough there, and the row keeps its width
 * for the key's use.
 */
const createdNote = (iso: string) => {
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? nothing
    : html`<span class="note created">created <time datetime=${iso} title=${iso}>${dateOnly.format(date)}</time></span>`;
};

const activeRow = (state: State, key: Key, admin: boolean, now: number) => {
  const soon = expiresSoon(key, now);
  const highlighted = state.highlighted === key.id;
  return html`<tr id="key-${key.id}" data-key-id=${key.id} data-status=${key.status} ?data-rolled=${key.replacedBy !== null} ?data-highlighted=${highlighted} tabindex=${highlighted ? '-1' : nothing}>
    <th scope="row" data-label="Name"><span>${key.name}${createdNote(key.createdAt)}</span></th>
    <td data-label="Prefix"><code>${key.prefix}</code></td>
    <td data-label="Status"><span class="badge ${key.status}">${key.status}</span>${
      key.replacedBy
        ? html` <span class="note">replaced by <code>${key.replacedBy.prefix}</code></span>`
        : inGraceBefore(key, state.keys)
          ? html` <span class="note">replaces <code>${key.replaces?.prefix}</code></span>`
          : nothing
    }</td>
    <td data-label="KPIs">${scopeText(key.kpiIds, state.kpiNames)}</td>
    <td data-label="Expires">${timeCell(key.expiresAt, 'Never')}${soon ? html` <span class="soon">${soon}</span>` : nothing}</td>
    <td data-label="Last used">${timeCell(key.lastUsedAt, 'Never')}</td>
    ${usageCell(state, key)}
    ${lastRequestCell(key)}
    ${
      admin
        ? html`<td class="row-actions">${
            key.replacedBy
              ? nothing
              : html`<button type="button" aria-label="Roll ${keyLabel(key)}" @click=${() => openRoll(key)}>Roll</button>`
          }<button type="button" class="danger" aria-label="Revoke ${keyLabel(key)}" @click=${() => openRevoke(key)}>Revoke</button></td>`
        : nothing
    }
  </tr>${usageRow(state, key, ACTIVE_COLUMNS + (admin ? 1 : 0))}`;
};

/** Revoked and expired keys, with when they ended and who revoked them. */
const inactiveRow = (state: State, key: Key) => {
  const by = key.status === 'revoked' ? actorText(key.revokedBy) : null;
  const highlighted = state.highlighted === key.id;
  return html`<tr id="key-${key.id}" data-key-id=${key.id} data-status=${key.status} ?data-highlighted=${highlighted} tabindex=${highlighted ? '-1' : nothing}>
    <th scope="row" data-label="Name">${key.name}</th>
    <td data-label="Prefix"><code>${key.prefix}</code></td>
    <td data-label="Status"><span class="badge ${key.status}">${key.status}</span></td>
    <td data-label="Ended">${
      key.status === 'revoked'
        ? html`Revoked ${timeCell(key.revokedAt, '—')}${by ? html`<span class="note"> by ${by}</span>` : nothing}`
        : html`Expired ${timeCell(key.expiresAt, '—')}`
    }</td>
    <td data-label="Created">${timeCell(key.createdAt, '—')}</td>
    <td data-label="Last used">${timeCell(key.lastUsedAt, 'Never')}</td>
    ${usageCell(state, key)}
    ${lastRequestCell(key)}
  </tr>${usageRow(state, key, INACTIVE_COLUMNS)}`;
};

/** Columns of the tables, besides the actions: a usage panel spans them all. */
const ACTIVE_COLUMNS = 8;
const INACTIVE_COLUMNS = 8;

const keyList = (state: State, keys: Key[], admin: boolean) => {
  const now = Date.now();
  const active = keys.filter((key) => key.status === 'active');
  const inactive = keys.filter((key) => key.status !== 'active');
  const byId = (key: Key) => key.id;
  return html`${
    active.length === 0
      ? html`<p id="empty" class="empty">Your organization has no active API keys${inactive.length > 0 ? '' : ' yet'}.${
          admin ? ' Create one to let an external system push measurements.' : ''
        }</p>`
      : html`<table id="keys-table">
          <caption class="visually-hidden">Active API keys of your organization</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Status</th>
              <th scope="col">KPIs</th>
              <th scope="col">Expires</th>
              <th scope="col">Last used</th>
              <th scope="col">Last 30 days</th>
              <th scope="col">Last request</th>
              ${admin ? html`<th scope="col"><span class="visually-hidden">Actions</span></th>` : nothing}
            </tr>
          </thead>
          <tbody id="keys-body">${repeat(active, byId, (key) => activeRow(state, key, admin, now))}</tbody>
        </table>`
  }
  ${
    inactive.length === 0
      ? nothing
      : html`<details id="inactive" ?open=${inactive.some((key) => key.id === state.highlighted)}>
          <summary id="inactive-summary">Show inactive (${inactive.length})</summary>
          <table id="inactive-table">
            <caption class="visually-hidden">Revoked and expired API keys of your organization</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Prefix</th>
                <th scope="col">Status</th>
                <th scope="col">Ended</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Last 30 days</th>
                <th scope="col">Last request</th>
              </tr>
            </thead>
            <tbody id="inactive-body">${repeat(inactive, byId, (key) => inactiveRow(state, key))}</tbody>
          </table>
        </details>`
  }`;
};

const content = (state: State) => {
  const admin = isAdmin(state.shell);
  const { keys } = state;
  const plan = keys ? planView(state, keys) : { usage: null, pushWarning: null, limit: null };
  return html`<section id="keys" aria-labelledby="keys-title" aria-busy=${state.loading ? 'true' : nothing}>
    <div class="section-head">
      <h2 id="keys-title" tabindex="-1">Keys of your organization</h2>
      ${
        admin
          ? html`<button type="button" id="create-open" class="primary" ?disabled=${plan.limit !== null} aria-describedby=${plan.limit ? 'limit-notice' : nothing} @click=${openCreate}>Create API key</button>`
          : nothing
      }
    </div>
    ${message('plan-usage', 'plan-usage', plan.usage)}
    ${message('push-warning', 'notice warning', plan.pushWarning)}
    ${message(
      'role-notice',
      'notice',
      admin
        ? null
        : `You are signed in with the ${state.shell.claims?.role ?? 'unknown'} role. Only administrators (ADMIN) ` +
            'can create or revoke API keys, so you can see the list but not change it.',
    )}
    ${message('limit-notice', 'notice warning', plan.limit)}
    ${state.loadError ? loadFailed('list-error', 'The keys', state.loadError, retry) : nothing}
    ${keys ? keyList(state, keys, admin) : state.loading ? loadingNotice('keys-loading', 'Loading the keys…') : nothing}
  </section>`;
};

const today = () => {
  const now = new Date();
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
};

const createDialog = (dialog: DialogOf<'create'> | null) =>
  html`<dialog id="create-dialog" aria-labelledby="create-title" ${modal(dialog !== null)} @close=${() => closed('create')}>${
    dialog
      ? html`<form id="create-form" class="stack" novalidate @submit=${submitCreate}>
          <h2 id="create-title">Create API key</h2>
          <div class="field">
            <label for="key-name">Name</label>
            <p id="key-name-hint" class="hint">What the key is for, e.g. “CI pipeline”. 1 to 100 characters.</p>
            <input id="key-name" name="name" required maxlength="100" autocomplete="off" aria-describedby="key-name-hint key-name-error" aria-invalid=${dialog.nameError ? 'true' : nothing} />
            ${message('key-name-error', 'error', dialog.nameError)}
          </div>
          <div class="field">
            <label for="key-expires">Expiration date <span class="optional">(optional)</span></label>
            <p id="key-expires-hint" class="hint">
              The key stops working at the end of this day (your time zone). Leave empty for no expiration.
            </p>
            <input id="key-expires" name="expiresAt" type="date" min=${today()} aria-describedby="key-expires-hint key-expires-error" aria-invalid=${dialog.expiresError ? 'true' : nothing} />
            ${message('key-expires-error', 'error', dialog.expiresError)}
          </div>
          ${message('create-error', 'error', dialog.error, 'alert')}
          <div class="actions">
            <button type="button" id="create-cancel" @click=${() => closed('create')}>Cancel</button>
            <button type="submit" id="create-submit" class="primary" ?disabled=${dialog.busy}>Create key</button>
          </div>
        </form>`
      : nothing
  }</dialog>`;

const rollNote = (rolled: Key) => {
  const old = rolled.expiresAt ? new Date(rolled.expiresAt) : null;
  return old && old.getTime() > Date.now()
    ? `The old key ${rolled.prefix}… keeps working until ${dateOnly.format(old)} ${timeOnly.format(old)}: deploy the new key before then.`
    : `The old key ${rolled.prefix}… has stopped working.`;
};

// A textarea, not an input: the whole key wraps onto two lines on a 375 px phone instead of being cut
// off at about 21 characters, and it can still be selected and copied in one go.
const revealDialog = (dialog: DialogOf<'reveal'> | null) =>
  html`<dialog id="reveal-dialog" aria-labelledby="reveal-title" ${modal(dialog !== null)} @close=${closeReveal}>${
    dialog
      ? html`<div class="stack">
          <h2 id="reveal-title">Your new API key</h2>
          <p id="reveal-warning" class="notice warning"><strong>Copy this key now. </strong>It is shown only once and cannot be shown again. If you lose it, revoke “${dialog.created.name}” and create a new key.</p>
          ${dialog.rolled ? html`<p id="reveal-roll">${rollNote(dialog.rolled)}</p>` : nothing}
          <div class="field">
            <label for="new-key">API key “${dialog.created.name}”</label>
            <textarea id="new-key" readonly rows="2" autocomplete="off" spellcheck="false" aria-describedby="reveal-warning" .value=${dialog.created.key}></textarea>
            <div class="copy-row">
              <button type="button" class="primary" @click=${copyKey}>Copy</button>
              <span class="copied" role="status">${dialog.copied ?? ''}</span>
            </div>
          </div>
          <div class="actions"><button type="button" @click=${closeReveal}>Done</button></div>
        </div>`
      : nothing
  }</dialog>`;

const rollDialog = (dialog: DialogOf<'roll'> | null) =>
  html`<dialog id="roll-dialog" aria-labelledby="roll-title" aria-describedby="roll-text" ${modal(dialog !== null)} @close=${() => closed('roll')}>${
    dialog
      ? html`<form id="roll-form" class="stack" novalidate @submit=${submitRoll}>
          <h2 id="roll-title">Roll API key “${dialog.key.name}”?</h2>
          <p id="roll-text">A new key replaces “${dialog.key.name}” (prefix ${dialog.key.prefix}), with the same name and KPIs, and is shown once. The old key keeps working for the time you choose, so you can deploy the new one without downtime.</p>
          <div class="field">
            <label for="roll-grace">The old key keeps working for</label>
            <select id="roll-grace" name="gracePeriodHours">
              <option value="0">no time: it stops now (the key leaked)</option>
              <option value="1">1 hour</option>
              <option value="24" selected>24 hours</option>
              <option value="72">3 days</option>
              <option value="168">7 days (the longest)</option>
            </select>
          </div>
          ${message('roll-error', 'error', dialog.error, 'alert')}
          <div class="actions">
            <button type="button" id="roll-cancel" @click=${() => closed('roll')}>Cancel</button>
            <button type="submit" id="roll-confirm" class="primary" ?disabled=${dialog.busy}>Roll key</button>
          </div>
        </form>`
      : nothing
  }</dialog>`;

/** Until when an old key of a roll works, in words. */
const graceEnd = (key: Key) => {
  const end = key.expiresAt ? new Date(key.expiresAt) : null;
  return end ? `${dateOnly.format(end)} ${timeOnly.format(end)}` : 'the end of its grace period';
};

const revokeDialog = (dialog: DialogOf<'revoke'> | null) =>
  html`<dialog id="revoke-dialog" aria-labelledby="revoke-title" aria-describedby=${dialog?.alsoStops ? 'revoke-text revoke-also' : 'revoke-text'} ${modal(dialog !== null)} @close=${() => closed('revoke')}>${
    dialog
      ? html`<div class="stack">
          <h2 id="revoke-title">Revoke API key “${dialog.key.name}”?</h2>
          <p id="revoke-text">“${dialog.key.name}” (prefix ${dialog.key.prefix}) stops working immediately: requests with it are refused. A revoked key cannot be reactivated.${
            dialog.key.replacedBy ? ` Its replacement ${dialog.key.replacedBy.prefix}… keeps working.` : ''
          }</p>${
            dialog.alsoStops
              ? html`<p id="revoke-also" class="notice warning"><strong>The old key ${dialog.alsoStops.prefix}… stops working too.</strong> This key replaced it in a roll, and it works until ${graceEnd(dialog.alsoStops)} only while its replacement does: revoking this key ends its grace period now. To keep this key and stop the old one, revoke ${dialog.alsoStops.prefix}… instead.</p>`
              : nothing
          }
          ${message('revoke-error', 'error', dialog.error, 'alert')}
          <div class="actions">
            <button type="button" id="revoke-cancel" @click=${() => closed('revoke')}>Cancel</button>
            <button type="button" id="revoke-confirm" class="danger" ?disabled=${dialog.busy} @click=${confirmRevoke}>Revoke key</button>
          </div>
        </div>`
      : nothing
  }</dialog>`;

const dialogOf = <K extends Dialog['kind']>(state: State, kind: K) =>
  state.dialog?.kind === kind ? (state.dialog as DialogOf<K>) : null;

const dialogs = (state: State) =>
  html`${createDialog(dialogOf(state, 'create'))}${revealDialog(dialogOf(state, 'reveal'))}${rollDialog(
    dialogOf(state, 'roll'),
  )}${revokeDialog(dialogOf(state, 'revoke'))}`;

const page = createPage<Keys>({
  name: 'api-keys',
  title: 'API keys',
  lead: html`API keys let external systems (CI/CD pipelines, cron jobs, applications) push KPI measurements
    for your organization. They send the key in the <code>x-api-key</code> header.`,
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
  content,
  dialogs,
  signedIn: async (interactive) => {
    await loadKeys();
    // The KPI page links a measurement's key to its row here (`api-keys#key-<id>`). The rows arrive
    // after the page loaded, so the browser cannot scroll to the fragment itself.
    const linked = location.hash.startsWith('#key-') ? decodeURIComponent(location.hash.slice(5)) : null;
    if (!(linked && showKey(linked)) && interactive) focusById('keys-title');
  },
});

// ---------------------------------------------------------------------------------------------------
// Loading

/** Every page of a list endpoint. */
const loadAll = async <P extends { items: unknown[]; nextCursor?: string | undefined }>(path: string) => {
  const pages: P[] = [];
  let cursor: string | undefined;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const next = await api<P>(
      'GET',
      cursor ? `${path}${separator}cursor=${encodeURIComponent(cursor)}` : path,
    );
    pages.push(next);
    cursor = next.nextCursor;
  } while (cursor);
  return pages;
};

const loadKpiNames = async (): Promise<Map<string, string>> => {
  try {
    const pages = await loadAll<KpiPage>('/kpis?limit=1000');
    return new Map(pages.flatMap((kpis) => kpis.items.map((kpi) => [kpi.id, kpi.name] as const)));
  } catch {
    return new Map(); // the scope shows KPI ids then; the list itself still loads
  }
};

/** Counts loads, so that only the latest one's answer is shown when several overlap. */
let loads = 0;

const loadKeys = async () => {
  const load = ++loads;
  page.update({ loading: true, loadError: null });
  try {
    const known = page.state.kpiNames;
    const [pages, kpiNames] = await Promise.all([
      loadAll<ApiKeyPage>('/api-keys?limit=1000'),
      known.size > 0 ? known : loadKpiNames(),
    ]);
    // A newer load, or a sign-out, came meanwhile: this answer is not what the page shows any more.
    if (load !== loads || !page.state.shell.claims) return;
    page.update({
      keys: pages.flatMap((keys) => keys.items),
      plan: pages[0]?.plan ?? null,
      kpiNames,
      loading: false,
    });
  } catch (error) {
    if (error instanceof SessionEnded || load !== loads || !page.state.shell.claims) return;
    page.update({ loading: false, loadError: describe(error) });
  }
};

/** Retrying keeps the keyboard in the list: the button goes away while the keys load. */
const retry = () => {
  focusById('keys-title');
  void loadKeys();
};

/** Counts each key's usage loads, so that only the latest answer is shown when several overlap. */
const usageLoads = new Map<string, number>();

/** Changes a key's usage panel if it is still open (the user may have closed it meanwhile). */
const patchUsage = (id: string, change: Partial<UsagePanel>) => {
  const panel = page.state.usage.get(id);
  if (!panel) return;
  page.update({ usage: new Map(page.state.usage).set(id, { ...panel, ...change }) });
};

/** The key's usage of the last 30 days, by day and by refusal reason, into its open panel. */
const loadUsage = async (id: string) => {
  const load = (usageLoads.get(id) ?? 0) + 1;
  usageLoads.set(id, load);
  patchUsage(id, { loading: true, error: null });
  const current = () => usageLoads.get(id) === load && page.state.usage.has(id);
  try {
    const usage = await api<ApiKeyUsageResponse>('GET', `/api-keys/${encodeURIComponent(id)}/usage`);
    if (!current()) return;
    patchUsage(id, { loading: false, usage });
    const name = page.state.keys?.find((key) => key.id === id)?.name ?? 'the key';
    page.announce(`Usage of “${name}” loaded.`);
  } catch (error) {
    if (error instanceof SessionEnded || !current()) return;
    patchUsage(id, { loading: false, error: describe(error) });
  }
};

/** Retrying keeps the keyboard in the panel: the button goes away while the usage loads. */
const retryUsage = (id: string) => {
  focusById(`usage-title-${id}`);
  void loadUsage(id);
};

/**
 * Opens or closes a key's usage panel (a disclosure: the focus stays on its button). Opening loads the
 * usage afresh: the key may have been used since.
 */
const toggleUsage = (key: Key) => {
  const usage = new Map(page.state.usage);
  if (usage.delete(key.id)) {
    page.update({ usage });
    return;
  }
  page.update({ usage: usage.set(key.id, { loading: true, error: null, usage: null }) });
  void loadUsage(key.id);
};

/** Points out a key's row: marked, scrolled to the middle and focused. False if there is no such row. */
const showKey = (id: string): boolean => {
  if (!page.state.keys?.some((key) => key.id === id)) return false;
  page.update({ highlighted: id });
  const row = document.getElementById(`key-${id}`);
  row?.scrollIntoView({ block: 'center' });
  row?.focus({ preventScroll: true });
  return true;
};

// ---------------------------------------------------------------------------------------------------
// Dialogs

/** Changes the open dialog if it is still of this kind (the user may have closed it meanwhile). */
const patchDialog = <K extends Dialog['kind']>(kind: K, change: Partial<DialogOf<K>>) => {
  const dialog = dialogOf(page.state, kind);
  if (dialog) page.update({ dialog: { ...dialog, ...change } });
};

/** The dialog of this kind is closed (Cancel, Escape): forget it. */
const closed = (kind: Dialog['kind']) => {
  if (page.state.dialog?.kind === kind) page.update({ dialog: null });
};

const openCreate = () => {
  page.clearMessages();
  page.update({
    loadError: null,
    dialog: { kind: 'create', busy: false, nameError: null, expiresError: null, error: null },
  });
  focusById('key-name');
};

/** `YYYY-MM-DD` → the end of that day in the user's time zone. */
const endOfDay = (value: string): Date | null => {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return null;
  const date = new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]), 23, 59, 59);
  return Number.isNaN(date.getTime()) ? null : date;
};

const submitCreate = async (event: SubmitEvent) => {
  event.preventDefault();
  const form = new FormData(event.currentTarget as HTMLFormElement);
  const name = String(form.get('name') ?? '').trim();
  const expires = String(form.get('expiresAt') ?? '');
  const nameError =
    name.length === 0
      ? 'Enter a name.'
      : name.length > NAME_MAX
        ? `Use at most ${NAME_MAX} characters.`
        : null;
  let expiresAt: string | undefined;
  let expiresError: string | null = null;
  if (expires) {
    const end = endOfDay(expires);
    if (!end) expiresError = 'Enter a valid date.';
    else if (end.getTime() <= Date.now()) expiresError = 'Choose today or a later date.';
    else expiresAt = end.toISOString();
  }
  patchDialog('create', { nameError, expiresError, error: null });
  if (nameError || expiresError) {
    focusById(nameError ? 'key-name' : 'key-expires');
    return;
  }

  patchDialog('create', { busy: true });
  try {
    const created = await api<CreatedApiKeyResponse>(
      'POST',
      '/api-keys',
      expiresAt ? { name, expiresAt } : { name },
    );
    const { key: _shownOnce, ...listedKey } = created;
    reveal(created, null, [...(page.state.keys ?? []), listedKey]);
  } catch (error) {
    if (error instanceof SessionEnded) return;
    if (
      error instanceof ApiError &&
      error.status === 409 &&
      error.problem.type?.endsWith('/api-key-limit-reached')
    ) {
      // Someone else took the last slot meanwhile: say so in the dialog and keep what was typed.
      patchDialog('create', { busy: false, error: error.message });
      void loadKeys();
      return;
    }
    if (error instanceof ApiError && error.problem.errors?.length) {
      const other: string[] = [];
      const fields = { nameError: null as string | null, expiresError: null as string | null };
      for (const { path, message } of error.problem.errors) {
        if (path === 'name') fields.nameError = message;
        else if (path === 'expiresAt') fields.expiresError = message;
        else other.push(message);
      }
      patchDialog('create', {
        busy: false,
        ...fields,
        error: other.length > 0 ? other.join(' ') : error.message,
      });
    } else patchDialog('create', { busy: false, error: describe(error) });
  }
};

/**
 * Shows a new key once. The list gets the key (without the raw key) at once, and is reloaded: closing
 * the dialog points out its row.
 */
const reveal = (created: CreatedApiKeyResponse, rolled: Key | null, keys: Key[]) => {
  page.update({ keys, dialog: { kind: 'reveal', created, rolled, copied: null } });
  const field = document.getElementById('new-key') as HTMLTextAreaElement | null;
  field?.focus();
  field?.select();
  page.announce(rolled ? `API key “${created.name}” rolled.` : `API key “${created.name}” created.`);
  void loadKeys();
};

const copyKey = async () => {
  const dialog = dialogOf(page.state, 'reveal');
  if (!dialog) return;
  (document.getElementById('new-key') as HTMLTextAreaElement | null)?.select();
  try {
    await navigator.clipboard.writeText(dialog.created.key);
    patchDialog('reveal', { copied: 'Copied to the clipboard.' });
  } catch {
    patchDialog('reveal', { copied: 'Press Ctrl+C (⌘C) to copy the selected key.' });
  }
};

/** Done, or Escape: the raw key leaves the page, and the new key's row is pointed out. */
const closeReveal = () => {
  const dialog = dialogOf(page.state, 'reveal');
  if (!dialog) return;
  page.update({ dialog: null });
  if (!showKey(dialog.created.id)) focusById('keys-title');
};

const openRevoke = (key: Key) => {
  page.clearMessages();
  const alsoStops = inGraceBefore(key, page.state.keys);
  page.update({ loadError: null, dialog: { kind: 'revoke', key, alsoStops, busy: false, error: null } });
  focusById('revoke-cancel');
};

const confirmRevoke = async () => {
  const dialog = dialogOf(page.state, 'revoke');
  if (!dialog) return;
  const { key } = dialog;
  patchDialog('revoke', { busy: true, error: null });
  try {
    const { graceEnded } = await api<RevokedApiKeyResponse>(
      'DELETE',
      `/api-keys/${encodeURIComponent(key.id)}`,
    );
    closed('revoke');
    await loadKeys();
    page.announce(
      graceEnded
        ? `API key “${key.name}” revoked; the old key ${graceEnded.prefix}… stopped working too.`
        : `API key “${key.name}” revoked.`,
    );
    focusById('keys-title');
  } catch (error) {
    if (error instanceof SessionEnded) return;
    if (error instanceof ApiError && error.status === 404) {
      closed('revoke');
      await loadKeys();
      page.announce(`API key “${key.name}” no longer exists.`);
      focusById('keys-title');
      return;
    }
    patchDialog('revoke', { busy: false, error: describe(error) });
  }
};

// Roll: a new key with the same name and scope; the old one works through a grace period.

const openRoll = (key: Key) => {
  page.clearMessages();
  page.update({ loadError: null, dialog: { kind: 'roll', key, busy: false, error: null } });
  focusById('roll-grace');
};

const submitRoll = async (event: SubmitEvent) => {
  event.preventDefault();
  const dialog = dialogOf(page.state, 'roll');
  if (!dialog) return;
  const grace = Number(new FormData(event.currentTarget as HTMLFormElement).get('gracePeriodHours'));
  patchDialog('roll', { busy: true, error: null });
  try {
    const rolled = await api<RolledApiKeyResponse>(
      'POST',
      `/api-keys/${encodeURIComponent(dialog.key.id)}/roll`,
      { gracePeriodHours: grace },
    );
    const { key: _shownOnce, previous, ...next } = rolled;
    // The old key keeps the use it had: the roll's answer does not carry it.
    const keys = (page.state.keys ?? []).map((key) =>
      key.id === previous.id ? { ...previous, usage: key.usage } : key,
    );
    reveal(rolled, previous, [...keys, next]);
  } catch (error) {
    if (error instanceof SessionEnded) return;
    patchDialog('roll', { busy: false, error: describe(error) });
    if (error instanceof ApiError && error.status !== 400) void loadKeys();
  }
};

page.start();
