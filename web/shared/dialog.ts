/**
 * A page's dialogs. At most one is open, held in the page's state as `dialog` (a union told apart by
 * `kind`); each `<dialog>` element is modal exactly while the state holds its kind, and an answer that
 * arrives after the user closed its dialog changes nothing.
 */
import { nothing } from 'lit-html';
import { Directive, directive, type ElementPart, type PartInfo, PartType } from 'lit-html/directive.js';
import type { Page } from './shell';

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

/** The open dialog of a page whose state holds it as `dialog`: read it, change it, forget it. */
export const pageDialog = <D extends { kind: string }>(page: Page<{ dialog: D | null }>) => {
  type Of<K extends D['kind']> = Extract<D, { kind: K }>;
  /** The open dialog if it is of this kind, else null. */
  const of = <K extends D['kind']>(state: { dialog: D | null }, kind: K): Of<K> | null =>
    state.dialog?.kind === kind ? (state.dialog as Of<K>) : null;
  return {
    of,
    /** Changes the open dialog if it is still of this kind (the user may have closed it meanwhile). */
    patch: <K extends D['kind']>(kind: K, change: Partial<Of<K>>) => {
      const dialog = of(page.state, kind);
      if (dialog) page.update({ dialog: { ...dialog, ...change } });
    },
    /** The dialog of this kind is closed (Cancel, Escape, or done): forget it. */
    closed: (kind: D['kind']) => {
      if (page.state.dialog?.kind === kind) page.update({ dialog: null });
    },
  };
};
