/**
 * NIST SP 800-63B §3.1.1.2 (memorized secrets): a minimum length, a generous maximum, no composition
 * rules (no "one digit and one symbol"), and a refusal of values derived from the context of the
 * account. Spaces and every Unicode character count; the length is counted in code points after NFC,
 * as the password is hashed.
 */
export const MIN_PASSWORD_LENGTH = 12;
/** What login accepts: a longer value is refused before it is hashed. */
export const MAX_PASSWORD_LENGTH = 1024;

export interface PasswordContext {
  email: string;
  tenantName: string;
}

const comparable = (text: string) => text.normalize('NFC').trim().toLowerCase();

/** Why a new password is refused, or undefined when it may be set. */
export const passwordProblem = (
  password: string,
  { email, tenantName }: PasswordContext,
): string | undefined => {
  const length = [...password.normalize('NFC')].length;
  if (length < MIN_PASSWORD_LENGTH) return `password must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (length > MAX_PASSWORD_LENGTH) return `password must be at most ${MAX_PASSWORD_LENGTH} characters`;
  const typed = comparable(password);
  const address = comparable(email);
  const localPart = address.slice(0, address.lastIndexOf('@'));
  if (typed === address || typed === localPart) return 'password must not be the e-mail address';
  if (typed === comparable(tenantName)) return "password must not be the organization's name";
  return undefined;
};
