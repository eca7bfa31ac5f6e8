/**
 * Loading what a page shows: every page of a list, only the newest of overlapping loads, and the
 * tenant's KPIs, which pages name in their own lists.
 */
import type { CyclePage, CycleResponse, KpiPage } from './api-types';
import { api, type PageState } from './shell';

/** Every page of a list endpoint, following `nextCursor`: the first page, then the others in order. */
export const loadEvery = async <P extends { nextCursor?: string | undefined }>(path: string) => {
  const separator = path.includes('?') ? '&' : '?';
  const first = await api<P>('GET', path);
  const pages: [P, ...P[]] = [first];
  for (let cursor = first.nextCursor; cursor; ) {
    const next = await api<P>('GET', `${path}${separator}cursor=${encodeURIComponent(cursor)}`);
    pages.push(next);
    cursor = next.nextCursor;
  }
  return pages;
};

/**
 * Counts a page's loads of one kind, so that only the newest one's answer is shown when several
 * overlap: `const wanted = keyLoads();` at the start of a load, `if (!wanted()) return;` once its answer
 * is there. An answer is wanted while no newer load, and no sign-out, came meanwhile.
 */
export const newestLoad = (page: { readonly state: PageState<object> }) => {
  let count = 0;
  return () => {
    const load = ++count;
    return () => load === count && page.state.shell.claims !== null;
  };
};

/**
 * The tenant's KPIs, for their names; empty if they could not be loaded (a page shows ids then, and its
 * own list still loads).
 */
export const loadKpis = async (): Promise<KpiPage['items']> => {
  try {
    const pages = await loadEvery<KpiPage>('/kpis?limit=1000');
    return pages.flatMap((kpis) => kpis.items);
  } catch {
    return [];
  }
};

/** The tenant's strategic cycles, every page, oldest first. */
export const loadCycles = async (): Promise<CycleResponse[]> =>
  (await loadEvery<CyclePage>('/strategic-cycles?limit=1000')).flatMap((cycles) => cycles.items);
