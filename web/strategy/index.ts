/**
 * The strategy page (served at /platform/strategy by functions/strategy-page.ts): the tenant's
 * strategic cycles, each with its KPIs and their status counts, and the KPIs in no cycle. ADMIN and
 * EDITOR create and change KPIs (every field: period, direction, tolerance, cadence, cycle, owner),
 * set their targets a row per period (pasted from a spreadsheet), archive and restore them, and
 * create, change and delete cycles. The KPI page's New KPI, Edit, Targets and Archive lead here
 * (`?do=…`): the KPI page's size budget is spent on its chart.
 *
 * The folder, along the page's sections: state.ts (the state and the words), actions.ts (loading and
 * what the dialogs send), views.ts (the cycles and their KPIs), dialogs.ts (the forms), targets.ts
 * (the targets' rows and pasted rows, without a DOM), and this file, which starts the page.
 */
import { html } from 'lit-html';
import { signedIn } from './actions';
import { dialogs } from './dialogs';
import { page } from './state';
import { content } from './views';

page.start({
  title: 'Strategy',
  lead: html`Your strategic cycles and the KPIs in them: where each cycle's KPIs stand against their targets, and
    the KPIs, targets and cycles themselves.`,
  content,
  dialogs,
  signedIn,
});
