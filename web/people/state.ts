/** The people page's state and the page that holds it. */
import type { PersonResponse, PersonWithLinkResponse } from '../shared/api-types';
import { createPage, type PageState } from '../shared/shell';

export type Person = PersonResponse;

export interface People {
  /** The users shown, oldest first; null until the first page arrived. */
  users: Person[] | null;
  nextCursor: string | null;
  loading: boolean;
  loadError: string | null;
  /** A VIEWER or EDITOR: people are managed by ADMINs, and the page says so instead of asking. */
  forbidden: boolean;
  /** The invite form: sending, and the service's problem with it. */
  inviting: boolean;
  inviteError: string | null;
  /** A new number renders a new, empty invite form after an invitation. */
  inviteForm: number;
  /** The user a change is being sent for, so that their row's buttons wait. */
  busyId: string | null;
  /** The service's problem with a change of a row (the last ADMIN, the plan's maximum). */
  actionError: string | null;
  /**
   * The one-time link just made, shown until dismissed: the service never returns it again, and the
   * page keeps it in memory only.
   */
  link: PersonWithLinkResponse | null;
  copied: boolean;
}

export type State = PageState<People>;

export const page = createPage<People>({
  name: 'people',
  initial: {
    users: null,
    nextCursor: null,
    loading: false,
    loadError: null,
    forbidden: false,
    inviting: false,
    inviteError: null,
    inviteForm: 0,
    busyId: null,
    actionError: null,
    link: null,
    copied: false,
  },
});
