/**
 * Choosing a key's KPIs in a dialog (create, and a key's KPIs): the tenant's KPIs a page at a time,
 * with "Show more" for the next page, so that a dialog never waits for every KPI of a large tenant.
 * The KPIs already chosen stay chosen, and listed, whether or not their page is loaded yet. None
 * chosen: every KPI, also those made later.
 */
import { html, nothing } from 'lit-html';
import type { KpiPage } from '../shared/api-types';
import { api, describe, SessionEnded } from '../shared/shell';
import { type DialogOf, type KpiChoices, openDialog, page } from './state';

/** KPIs a page of choices holds: a screenful of checkboxes. */
export const KPI_CHOICES_PAGE = 25;

type Chooser = 'create' | 'scope';

export const kpiChoices = (selected: string[]): KpiChoices => ({
  items: [],
  nextCursor: null,
  loading: true,
  error: null,
  selected,
});

const choicesOf = (kind: Chooser): KpiChoices | null =>
  (openDialog.of(page.state, kind) as DialogOf<Chooser> | null)?.kpis ?? null;

const patchChoices = (kind: Chooser, change: Partial<KpiChoices>) => {
  const kpis = choicesOf(kind);
  if (kpis) openDialog.patch(kind, { kpis: { ...kpis, ...change } });
};

/** The next page of KPIs into the open dialog's choices (the first page when `cursor` is null). */
export const loadChoices = async (kind: Chooser, cursor: string | null) => {
  patchChoices(kind, { loading: true, error: null });
  try {
    const found = await api<KpiPage>(
      'GET',
      `/kpis?limit=${KPI_CHOICES_PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    const kpis = choicesOf(kind);
    if (!kpis) return;
    patchChoices(kind, {
      items: [...kpis.items, ...found.items.map(({ id, name }) => ({ id, name }))],
      nextCursor: found.nextCursor ?? null,
      loading: false,
    });
  } catch (error) {
    if (error instanceof SessionEnded) return;
    patchChoices(kind, { loading: false, error: describe(error) });
  }
};

const toggle = (kind: Chooser, id: string, on: boolean) => {
  const kpis = choicesOf(kind);
  if (!kpis) return;
  const selected = kpis.selected.filter((chosen) => chosen !== id);
  patchChoices(kind, { selected: on ? [...selected, id] : selected });
};

/**
 * The choices as a group of checkboxes named `kpiIds`, those chosen first when their page is not
 * loaded yet (named by `names`, or by id), then the loaded pages, then "Show more KPIs".
 */
export const kpiChoicesView = (
  kind: Chooser,
  kpis: KpiChoices,
  names: Map<string, string>,
  error: string | null,
) => {
  const loaded = new Set(kpis.items.map((kpi) => kpi.id));
  const unlisted = kpis.selected
    .filter((id) => !loaded.has(id))
    .map((id) => ({ id, name: names.get(id) ?? id }));
  const box = ({ id, name }: { id: string; name: string }) =>
    html`<li><label><input type="checkbox" name="kpiIds" value=${id} .checked=${kpis.selected.includes(id)} @change=${(event: Event) => toggle(kind, id, (event.currentTarget as HTMLInputElement).checked)} /> ${name}</label></li>`;
  return html`<fieldset class="kpi-choices" id="${kind}-kpis" aria-describedby="${kind}-kpis-hint ${kind}-kpis-error" aria-busy=${kpis.loading ? 'true' : nothing}>
    <legend>KPIs the key may push to <span class="optional">(optional)</span></legend>
    <p id="${kind}-kpis-hint" class="hint">${
      kpis.selected.length === 0
        ? 'None chosen: every KPI, also KPIs created later.'
        : `${kpis.selected.length} chosen: a push to any other KPI is refused.`
    }</p>
    <ul class="choices">${[...unlisted, ...kpis.items].map(box)}</ul>
    ${kpis.loading ? html`<p class="hint">Loading KPIs…</p>` : nothing}
    ${kpis.error ? html`<p class="error" role="alert">The KPIs could not be loaded: ${kpis.error}</p>` : nothing}
    ${
      !kpis.loading && (kpis.nextCursor || kpis.error)
        ? html`<button type="button" id="${kind}-kpis-more" @click=${() => loadChoices(kind, kpis.nextCursor)}>${kpis.error ? 'Try again' : 'Show more KPIs'}</button>`
        : nothing
    }
    <p id="${kind}-kpis-error" class="error" role="alert" ?hidden=${!error}>${error ?? ''}</p>
  </fieldset>`;
};
