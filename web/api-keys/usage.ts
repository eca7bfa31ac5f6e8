/**
 * A key's use: its last 30 days in the row (the chart, the requests and the refusal share as text, the
 * last request and where it came from), and the refusals by reason in its usage panel under the row.
 */
import { html, nothing } from 'lit-html';
import type { ApiKeyRecentUsage, ApiKeyUsageResponse } from '../shared/api-types';
import { utcDate, utcDay } from '../shared/format';
import { loadFailed, loadingNotice, timeCell } from '../shared/view';
import { retryUsage, toggleUsage } from './actions';
import { requestsOf, usageChart } from './chart';
import { type Key, keyLabel, type State } from './state';

type Refusal = keyof ApiKeyUsageResponse['totals']['refused'];

const countFormat = new Intl.NumberFormat();
const percentFormat = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 0 });

const requestsText = (count: number) => `${countFormat.format(count)} request${count === 1 ? '' : 's'}`;

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
export const usageCell = (state: State, key: Key) => {
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

export const lastRequestCell = (key: Key) =>
  html`<td data-label="Last request" class="last-request">${
    key.usage?.lastRequestAt
      ? html`${timeCell(key.usage.lastRequestAt, '—')}${sourceView(key.usage.lastSourceIp, key.usage.lastUserAgent)}`
      : 'None in 30 days'
  }</td>`;

/** Refusal reasons in the service's words, for people. */
const REFUSALS: Record<Refusal, { label: string; hint: string }> = {
  authentication: { label: 'Authentication', hint: 'revoked or expired key, or inactive organization' },
  source: { label: 'Source', hint: 'an address the key does not allow' },
  scope: { label: 'Scope', hint: 'a KPI outside the key’s KPIs' },
  rateLimit: { label: 'Rate limit', hint: 'too many requests in a minute' },
  validation: { label: 'Validation', hint: 'an invalid body, or a KPI that is not your organization’s' },
  featureOff: { label: 'Feature off', hint: 'the plan does not include pushing measurements' },
};
const REFUSAL_ORDER = Object.keys(REFUSALS) as Refusal[];

const usageDetail = ({ from, to, totals }: ApiKeyUsageResponse) => {
  const refused = REFUSAL_ORDER.reduce((sum, reason) => sum + totals.refused[reason], 0);
  // As in the row: the list counts the refusals at the edge among the requests, the rate counter not.
  const requests = Math.max(totals.requests + totals.refused.authentication + totals.refused.source, refused);
  const figure = (id: string, label: string, value: number) =>
    html`<div data-figure=${id}><dt>${label}</dt><dd>${countFormat.format(value)}</dd></div>`;
  return html`<p class="hint">${utcDay.format(utcDate(from))} – ${utcDay.format(utcDate(to))} (UTC days)</p>
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
    }</p>${
      totals.lastRefusedSourceIp
        ? html`<p id="usage-refused-source">Last refused source: <code>${totals.lastRefusedSourceIp}</code></p>`
        : nothing
    }`;
};

/** The row under a key's row while its usage panel is open. */
export const usageRow = (state: State, key: Key, columns: number) => {
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
