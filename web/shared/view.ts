/**
 * Rendering helpers every page under /platform/ shares: lit-html templates for the states a load goes
 * through, instants as `<time>`, and modal dialogs whose open state follows the page's state.
 */
import { html, nothing } from 'lit-html';
import { Directive, directive, type ElementPart, type PartInfo, PartType } from 'lit-html/directive.js';

export const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
export const timeOnly = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' });

/** An instant as date and time in the user's time zone, the ISO value in `datetime` and `title`. */
export const timeCell = (iso: string | null, none: string) => {
  if (!iso) return none;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return html`<time datetime=${iso} title=${iso}><span class="date">${dateOnly.format(date)}</span> <span class="clock">${timeOnly.format(date)}</span></time>`;
};

/** What a page shows where data will be, while it loads. */
export const loadingNotice = (id: string, text: string) => html`<p id=${id} class="empty">${text}</p>`;

/**
 * A load that failed: what could not be loaded, the problem's detail, and a button to try again. The
 * message is an alert, so it is announced when it appears.
 */
export const loadFailed = (id: string, what: string, detail: string, retry: () => void) =>
  html`<div class="load-failed">
    <p id=${id} class="error" role="alert">${what} could not be loaded: ${detail}</p>
    <button type="button" @click=${retry}>Try again</button>
  </div>`;

/** `hidden` unless there is text: for messages whose element stays, so that its id can be referenced. */
export const message = (id: string, className: string, text: string | null, role?: 'alert' | 'status') =>
  html`<p id=${id} class=${className} role=${role ?? nothing} ?hidden=${!text}>${text ?? ''}</p>`;

/** Focuses an element of the rendered page; renders are synchronous, so it exists right after one. */
export const focusById = (id: string) => document.getElementById(id)?.focus();

/**
 * `<dialog ${modal(open)}>`: a modal dialog that is open exactly while `open` is true. The browser's own
 * closing (Escape) fires `close`; the page's handler then updates its state, which keeps them equal.
 */
class ModalDirective extends Directive {
  constructor(part: PartInfo) {
    super(part);
    if (part.type !== PartType.ELEMENT) throw new Error('modal() belongs on a <dialog> element');
  }

  render(_open: boolean) {
    return nothing;
  }

  override update(part: ElementPart, [open]: [boolean]) {
    const dialog = part.element as HTMLDialogElement;
    if (open && !dialog.open) dialog.showModal();
    else if (!open && dialog.open) dialog.close();
    return nothing;
  }
}

export const modal = directive(ModalDirective);
