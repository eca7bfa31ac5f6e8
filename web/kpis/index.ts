/**
 * The KPI page (served at /platform/kpis by functions/kpis-page.ts): the tenant's KPIs with their
 * latest value, a sparkline, a quiet mark and their status against their target
 * (`GET /kpis?include=activity`), sorted by status (off track first) or by name, and one KPI's chart of
 * actual against target and forecast with its measurements and the keys that pushed them
 * (`GET /kpis/{id}`, `GET /api-keys` for the key names). One state, rendered by lit-html; sign-in,
 * session and navigation are shared with the other pages (web/shared/shell.ts). Routes: `?type=<KpiType>`
 * filters the list, `?sort=name` orders it by name, `?kpi=<id>` shows one KPI; they survive a reload
 * and work with Back.
 *
 * The list is grouped by strategic cycle and filtered by cycle and owner too; `?archived` lists the
 * archived KPIs instead. The forms that create and change KPIs, targets and cycles are on the strategy page
 * (web/strategy/), where the KPI page's Edit, Targets, Archive and New KPI lead.
 *
 * The folder, along the page's sections: state.ts (the state and the words for types and statuses),
 * actions.ts (loading), routes.ts (the URL), views.ts (the list and the detail), chart.ts (the detail's
 * chart), format.ts (values and periods), and this file, which starts the page with its view.
 */
import { html } from 'lit-html';
import { show } from './routes';
import { page } from './state';
import { detailView, listView } from './views';

page.start({
  title: 'KPIs',
  lead: ({ route }) =>
    route.kpiId
      ? html`One KPI: its values against target and forecast by period, its projection, and what wrote each value.`
      : html`What your external systems pushed: each KPI's latest value, when it arrived and which API key sent
    it, and how it tracks its target.`,
  content: (state) => (state.route.kpiId ? detailView(state) : listView(state)),
  documentTitle: ({ route, detail }) =>
    route.kpiId && detail ? `${detail.kpi.name} · KPIs · Strategy service` : 'KPIs · Strategy service',
  signedIn: (interactive) => show(interactive),
});

window.addEventListener('popstate', () => {
  if (page.state.shell.claims) void show(true);
});
