/**
 * The accept page's state: the one-time token of the link, read from the URL's fragment once, and the
 * form's progress. The page has no session yet, so it holds its state itself instead of the shared
 * frame's `createPage`, whose pages need a sign-in.
 */
export interface Accept {
  /** The link's token; null when the address has none (opened without the link, or reloaded). */
  token: string | null;
  busy: boolean;
  error: string | null;
}

let current: Accept = {
  token: new URLSearchParams(location.hash.slice(1)).get('token'),
  busy: false,
  error: null,
};
let view: (state: Accept) => void = () => undefined;

export const state = () => current;

/** Merges `change` into the state and renders the page from it. */
export const update = (change: Partial<Accept>) => {
  current = { ...current, ...change };
  view(current);
};

/** The page's view renders every state from now on. */
export const show = (render: (state: Accept) => void) => {
  view = render;
  render(current);
};
