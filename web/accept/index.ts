/**
 * The accept page (served at /platform/accept by functions/accept-page.ts): a person opens the one-time
 * link an ADMIN handed them, sets a password and lands signed in on the KPI page. The token comes in
 * the URL's fragment, which no request carries; the page reads it once and takes it out of the
 * address, so it stays neither in the history nor on the screen.
 *
 * The folder: state.ts (the token and the form's progress), actions.ts (setting the password),
 * views.ts (the form), and this file, which starts the page.
 */
import { show } from './state';
import { renderPage } from './views';

const before = document.currentScript ?? undefined;
if (location.hash) history.replaceState(null, '', location.pathname + location.search);
show(renderPage(before));
