/** The names the audit page shows for ids, from the events it has loaded. */
import type { AuditEventPage } from '../shared/api-types';

type AuditEvent = AuditEventPage['items'][number];

/**
 * What the loaded events tell of their targets' names: a key's events carry its name and prefix, a KPI's
 * or an integration's creation its name, a user's invitation the e-mail. Costs no request: an id whose
 * events say nothing of it is shown as the id.
 */
export const namesOf = (events: readonly AuditEvent[]): Map<string, string> => {
  const names = new Map<string, string>();
  // Oldest first, so that the newest name (a rename) wins.
  for (const { target, details } of [...events].reverse()) {
    const name = typeof details.name === 'string' ? details.name : undefined;
    const email = typeof details.email === 'string' ? details.email : undefined;
    const prefix = typeof details.keyPrefix === 'string' ? details.keyPrefix : undefined;
    const label =
      target.type === 'api_key' && name && prefix ? `${name} (${prefix}…)` : (name ?? email ?? prefix);
    if (label) names.set(target.id, label);
  }
  return names;
};
