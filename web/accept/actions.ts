/** Setting the password with the link's token: the answer is a session, and the KPI page opens with it. */
import { describe, openSession } from '../shared/shell';
import { focusById } from '../shared/view';
import { state, update } from './state';

/** NIST SP 800-63B's minimum, which the service enforces; the page says so before asking. */
export const MIN_PASSWORD_LENGTH = 12;

export const submit = async (event: SubmitEvent) => {
  event.preventDefault();
  const { token } = state();
  const password = String(new FormData(event.currentTarget as HTMLFormElement).get('password') ?? '');
  if (!token) return;
  if (password.length < MIN_PASSWORD_LENGTH) {
    update({ error: `Your password needs at least ${MIN_PASSWORD_LENGTH} characters.` });
    focusById('new-password');
    return;
  }
  update({ busy: true, error: null });
  try {
    await openSession('/auth/accept-invitation', { token, password });
    // Signed in: the session is this tab's, so the KPI page opens with it.
    location.replace('kpis');
  } catch (error) {
    update({ busy: false, error: describe(error) });
    focusById('new-password');
  }
};
