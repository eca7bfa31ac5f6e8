/** What changes the audit page's state: loading a page of events for the filters, and the next one. */
import type { AuditEventPage } from '../shared/api-types';
import { newestLoad } from '../shared/load';
import { api, describe, isAdmin, isProblem, SessionEnded } from '../shared/shell';
import { focusById } from '../shared/view';
import { type Filters, page } from './state';

const PAGE_SIZE = 50;
const loads = newestLoad(page);

/** A `datetime-local` value (the browser's time zone) as the instant the API takes. */
const instant = (local: string) => (local ? new Date(local).toISOString() : '');

/** The query of the filters: each type repeated, as `GET /audit-events` takes it. */
export const queryOf = (filters: Filters, cursor: string | null) => {
  const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
  if (filters.from) query.set('from', instant(filters.from));
  if (filters.to) query.set('to', instant(filters.to));
  for (const type of filters.types) query.append('type', type);
  const actor = filters.actor.trim();
  // People type an e-mail; an id is what the API names actors by (keys, services, users).
  if (actor) query.set(actor.includes('@') ? 'actorEmail' : 'actorId', actor);
  if (filters.targetId) query.set('targetId', filters.targetId.trim());
  if (cursor) query.set('cursor', cursor);
  return query.toString();
};

/** Loads the first page for `filters`, or the next page after what is shown (`more`). */
export const loadEvents = async (filters: Filters, more = false) => {
  const wanted = loads();
  const cursor = more ? page.state.nextCursor : null;
  page.update({
    filters,
    loading: true,
    loadError: null,
    ...(more ? {} : { items: null, nextCursor: null }),
  });
  try {
    const result = await api<AuditEventPage>('GET', `/audit-events?${queryOf(filters, cursor)}`);
    if (!wanted()) return;
    page.update({
      items: [...(more ? (page.state.items ?? []) : []), ...result.items],
      nextCursor: result.nextCursor ?? null,
      loading: false,
    });
    page.announce(`${result.items.length} event(s) ${more ? 'more ' : ''}shown.`);
  } catch (error) {
    if (error instanceof SessionEnded || !wanted()) return;
    if (isProblem(error, 'forbidden')) {
      page.update({ loading: false, forbidden: true, items: null });
      return;
    }
    page.update({ loading: false, loadError: describe(error) });
  }
};

export const applyFilters = (event: SubmitEvent) => {
  event.preventDefault();
  const form = new FormData(event.target as HTMLFormElement);
  const text = (name: string) => String(form.get(name) ?? '');
  void loadEvents({
    from: text('from'),
    to: text('to'),
    types: form.getAll('type').map(String),
    actor: text('actor'),
    targetId: text('targetId'),
  });
};

export const signedIn = async (interactive: boolean) => {
  if (!isAdmin(page.state.shell)) {
    page.update({ forbidden: true });
    return;
  }
  await loadEvents(page.state.filters);
  if (interactive) focusById('audit-title');
};
