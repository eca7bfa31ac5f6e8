/**
 * The source's answer as the form shows it (`POST /integrations/pull/preview`): every value a button
 * that puts its JMESPath into the binding field last focused, so that a path is picked, not typed.
 */

/** A step into an answer: a member name or an array index. */
export type Step = string | number;

/** JMESPath's unquoted identifier; any other member name is quoted (its JSON string is a quoted identifier). */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The JMESPath of the value at `steps`: `data.mrr`, `rows[0].i`, `[2]`, `meta."x-total"`. */
export const pathOf = (steps: Step[]): string =>
  steps
    .map((step, index) => {
      if (typeof step === 'number') return `[${step}]`;
      const name = IDENTIFIER.test(step) ? step : JSON.stringify(step);
      return index === 0 ? name : `.${name}`;
    })
    .join('');
