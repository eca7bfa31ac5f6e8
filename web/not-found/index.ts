/**
 * The page of an address under /platform/ that is no page (functions/not-found-page.ts answers it with
 * 404): it names the address and lists the pages there are, from the same list as the navigation.
 */
import { APP_PAGES } from '../shared/pages';

const missing = document.getElementById('missing');
// The address is shown as text, never as markup: it is whatever the visitor typed.
if (missing) missing.textContent = `There is no page at ${window.location.pathname}.`;
const list = document.getElementById('pages');
if (list) {
  list.replaceChildren(
    ...APP_PAGES.map(({ page, label }) => {
      const item = document.createElement('li');
      const link = document.createElement('a');
      // The missing address may be deeper than the pages (/platform/a/b): link from the stage's root.
      const { pathname } = window.location;
      link.href = `${pathname.slice(0, pathname.indexOf('/platform/'))}/platform/${page}`;
      link.textContent = label;
      item.append(link);
      return item;
    }),
  );
}
