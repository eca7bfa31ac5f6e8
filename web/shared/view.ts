/**
 * Rendering helpers every page under /platform/ shares: lit-html templates for the states a load goes
 * through, instants as `<time>`, and messages whose element stays.
 */
import { html, nothing } from 'lit-html';
import { dateOnly, timeOnly } from './format';

/** An instant as date and time in the user's time zone, the ISO value in `datetime` and `title`. */
export const timeCell = (iso: string | null, none: string) => {
  if (!iso) return none;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return html`<time datetime=${iso} title=${iso}><span class="date">${dateOnly.format(date)}</span> <span class="clock">${timeOnly.format(date)}</span></time>`;
};

/** An instant's day in the user's time zone, the exact instant in `datetime` and `title`. */
export const dayCell = (iso: string) =>
  html`<time datetime=${iso} title=${iso}>${dateOnly.format(new Date(iso))}</time>`;

/** What a page shows where data will be, while it loads. */
export const loadingNotice = (id: string, text: string) => html`<p id=${id} class="empty">${text}</p>`;

/**
 * A load that failed: what could not be loaded, the problem's detail, and a button to try again. The
 * message is an alert, so it is announced when it appears.
 */
/** A failed load with its reason, and Try again, unless `retry` is absent: a 404 stays one. */
export const loadFailed = (id: string, what: string, detail: string, retry?: () => void) =>
  html`<div class="load-failed">
    <p id=${id} class="error" role="alert">${what} could not be loaded: ${detail}</p>
    ${retry ? html`<button type="button" @click=${retry}>Try again</button>` : nothing}
  </div>`;

/** `hidden` unless there is text: for messages whose element stays, so that its id can be referenced. */
export const message = (id: string, className: string, text: string | null, role?: 'alert' | 'status') =>
  html`<p id=${id} class=${className} role=${role ?? nothing} ?hidden=${!text}>${text ?? ''}</p>`;

/** Focuses an element of the rendered page; renders are synchronous, so it exists right after one. */
export const focusById = (id: string) => document.getElementById(id)?.focus();
