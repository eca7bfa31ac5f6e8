/**
 * What changes the people page's state: loading pages of users, inviting, changing a role,
 * deactivating and reactivating, and a new one-time link.
 */
import type { PersonPage, PersonResponse, PersonWithLinkResponse } from '../shared/api-types';
import { newestLoad } from '../shared/load';
import { api, describe, isAdmin, isProblem, SessionEnded } from '../shared/shell';
import { focusById } from '../shared/view';
import { type Person, page } from './state';

const PAGE_SIZE = 50;
const loads = newestLoad(page);

/** Loads the first page of users, or the next one after those shown (`more`). */
export const loadUsers = async (more = false) => {
  const wanted = loads();
  const cursor = more ? page.state.nextCursor : null;
  page.update({ loading: true, loadError: null, ...(more ? {} : { users: null, nextCursor: null }) });
  const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
  if (cursor) query.set('cursor', cursor);
  try {
    const result = await api<PersonPage>('GET', `/users?${query}`);
    if (!wanted()) return;
    page.update({
      users: [...(more ? (page.state.users ?? []) : []), ...result.items],
      nextCursor: result.nextCursor ?? null,
      loading: false,
    });
  } catch (error) {
    if (error instanceof SessionEnded || !wanted()) return;
    if (isProblem(error, 'forbidden')) page.update({ loading: false, forbidden: true, users: null });
    else page.update({ loading: false, loadError: describe(error) });
  }
};

/** The user as the service now has them, in their place in the list (or last, when new). */
const replaced = (person: Person) => {
  const users = page.state.users ?? [];
  return users.some((user) => user.id === person.id)
    ? users.map((user) => (user.id === person.id ? person : user))
    : [...users, person];
};

/** A new link is shown once, above the list, with the note that the service sends no e-mail. */
const showLink = (answer: PersonWithLinkResponse) => {
  page.update({ users: replaced(answer.user), link: answer, copied: false });
  focusById('link-title');
};

export const invite = async (event: SubmitEvent) => {
  event.preventDefault();
  const form = new FormData(event.currentTarget as HTMLFormElement);
  const email = String(form.get('email') ?? '').trim();
  const name = String(form.get('name') ?? '').trim();
  if (!email) {
    page.update({ inviteError: 'Enter the e-mail address of the person to invite.' });
    focusById('invite-email');
    return;
  }
  page.clearMessages();
  page.update({ inviting: true, inviteError: null, actionError: null });
  try {
    const answer = await api<PersonWithLinkResponse>('POST', '/users', {
      email,
      role: form.get('role'),
      ...(name ? { name } : {}),
    });
    page.update({ inviting: false, inviteForm: page.state.inviteForm + 1 });
    showLink(answer);
    page.announce(`${answer.user.email} is invited. Copy their link now: it is shown only once.`);
  } catch (error) {
    if (error instanceof SessionEnded) return;
    page.update({ inviting: false, inviteError: describe(error) });
    focusById('invite-email');
  }
};

/** Sends a change of one user; the service's refusal (the last ADMIN, the plan's maximum) is shown. */
const change = async (user: Person, send: () => Promise<void>) => {
  page.clearMessages();
  page.update({ busyId: user.id, actionError: null });
  try {
    await send();
  } catch (error) {
    if (error instanceof SessionEnded) return;
    page.update({ actionError: `${user.email}: ${describe(error)}` });
    focusById('action-error');
  } finally {
    page.update({ busyId: null });
  }
};

const patch = (user: Person, body: { role?: string; active?: boolean }, done: (next: Person) => string) =>
  change(user, async () => {
    const next = await api<PersonResponse>('PATCH', `/users/${encodeURIComponent(user.id)}`, body);
    page.update({ users: replaced(next) });
    page.announce(done(next));
  });

export const changeRole = (user: Person, role: string) =>
  patch(user, { role }, (next) => `${next.email} is now ${next.role}.`);

export const setActive = (user: Person, active: boolean) =>
  patch(user, { active }, (next) => `${next.email} is ${next.status}.`);

export const newLink = (user: Person) =>
  change(user, async () => {
    const answer = await api<PersonWithLinkResponse>(
      'POST',
      `/users/${encodeURIComponent(user.id)}/password-reset`,
    );
    showLink(answer);
    page.announce(`A new link for ${user.email}. Copy it now: it is shown only once.`);
  });

export const copyLink = async () => {
  const url = page.state.link?.link.url;
  if (!url) return;
  try {
    await navigator.clipboard.writeText(url);
    page.update({ copied: true });
    page.announce('Link copied.');
  } catch {
    // No clipboard (an insecure origin, or denied): the link is selected for the user to copy.
    (document.getElementById('link-url') as HTMLInputElement | null)?.select();
    page.announce('Copy the selected link with your keyboard or menu.');
  }
};

export const dismissLink = () => {
  page.update({ link: null, copied: false });
  focusById('people-title');
};

export const signedIn = async (interactive: boolean) => {
  if (!isAdmin(page.state.shell)) {
    page.update({ forbidden: true });
    return;
  }
  await loadUsers();
  if (interactive) focusById('people-title');
};
