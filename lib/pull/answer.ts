/**
 * The source's answer as a preview shows it (lib/pull/run.ts): the parsed JSON, cut to a size a page
 * can show and a person can read, with every credential the request carried replaced wherever the
 * source echoed it (a debugging endpoint that mirrors the request headers, say). Cut structurally, so
 * that what is shown is still JSON and every value in it keeps the JMESPath it has in the full answer.
 */

/** The limits of a shown answer; past any of them `truncated` is true. */
export const ANSWER_LIMITS = {
  /** Values shown in all (objects, arrays and scalars alike). */
  values: 2000,
  /** Items shown of each array: the first ones. */
  arrayItems: 50,
  /** Characters shown of each string (and of each member name). */
  stringLength: 200,
  /** Levels of nesting shown; deeper objects and arrays are left out. */
  depth: 12,
} as const;

/** What replaces a credential in the shown answer. */
export const REDACTED = '[redacted]';

export interface ShownAnswer {
  answer: unknown;
  truncated: boolean;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Replaces every occurrence of any of `secrets` (longest first, so a part never leaves the rest). */
const redactor = (secrets: string[]) => {
  const distinct = [...new Set(secrets.filter((secret) => secret !== ''))].sort(
    (a, b) => b.length - a.length,
  );
  if (distinct.length === 0) return (text: string) => text;
  const pattern = new RegExp(distinct.map(escapeRegExp).join('|'), 'g');
  return (text: string) => text.replace(pattern, REDACTED);
};

/**
 * The answer as shown: at most ANSWER_LIMITS, each of `secrets` replaced by `[redacted]` in strings
 * and member names (a cut string is cut after its redaction, so no part of a secret is shown).
 */
export const shownAnswer = (answer: unknown, secrets: string[]): ShownAnswer => {
  const redact = redactor(secrets);
  let budget = ANSWER_LIMITS.values;
  let truncated = false;
  const text = (value: string) => {
    const clean = redact(value);
    if (clean.length <= ANSWER_LIMITS.stringLength) return clean;
    truncated = true;
    return `${clean.slice(0, ANSWER_LIMITS.stringLength)}…`;
  };
  const walk = (value: unknown, depth: number): unknown => {
    budget -= 1;
    if (typeof value === 'string') return text(value);
    if (value === null || typeof value !== 'object') return value;
    if (depth >= ANSWER_LIMITS.depth) {
      truncated = true;
      return Array.isArray(value) ? [] : {};
    }
    if (Array.isArray(value)) {
      const shown: unknown[] = [];
      for (const item of value) {
        if (shown.length >= ANSWER_LIMITS.arrayItems || budget <= 0) {
          truncated = true;
          break;
        }
        shown.push(walk(item, depth + 1));
      }
      return shown;
    }
    const shown: Record<string, unknown> = {};
    for (const [name, member] of Object.entries(value)) {
      if (budget <= 0) {
        truncated = true;
        break;
      }
      shown[text(name)] = walk(member, depth + 1);
    }
    return shown;
  };
  return { answer: walk(answer, 0), truncated };
};
