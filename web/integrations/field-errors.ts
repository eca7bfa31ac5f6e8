/**
 * Where the form shows each problem of a 400 answer: its `errors` name the field by path
 * (`bindings[1].actual`), and each message sits under the field it belongs to, so that a JMESPath
 * syntax error in a binding's Actual lands under that Actual, not under the binding's last field.
 */
export interface FieldError {
  path: string;
  message: string;
}

/** Whether a path is the field's or lies within it (`auth` holds `auth.tokenUrl`). */
const within = (path: string, field: string) =>
  path === field || path.startsWith(`${field}.`) || path.startsWith(`${field}[`);

/** The messages for a field and what lies within it, or null. */
export const errorsAt = (errors: FieldError[], path: string): string | null =>
  errors
    .filter((error) => within(error.path, path))
    .map((error) => error.message)
    .join(' ') || null;

export const BINDING_FIELDS = ['kpiId', 'actual', 'target', 'forecast'] as const;
export type BindingField = (typeof BINDING_FIELDS)[number];

/**
 * A binding's problems by field, and the rest (the binding as a whole, or a member the form has no
 * field for) for the binding's own line. `list`: the body's name of the binding array.
 */
export const bindingErrors = (
  errors: FieldError[],
  list: string,
  index: number,
): Record<BindingField, string | null> & { rest: string | null } => {
  const binding = `${list}[${index}]`;
  const fields = BINDING_FIELDS.map((field) => `${binding}.${field}`);
  const byField = Object.fromEntries(
    BINDING_FIELDS.map((field, i) => [field, errorsAt(errors, fields[i] as string)]),
  ) as Record<BindingField, string | null>;
  const rest = errors.filter((error) => !fields.some((field) => within(error.path, field)));
  return { ...byField, rest: errorsAt(rest, binding) };
};

/** A preview problem's leading field (`actual: the path matched nothing`). */
const PROBLEM_FIELD = /^(actual|target|forecast): (.*)$/s;
/** Where the next problem of a binding starts: `; ` before a field name (a message may hold `; ` too). */
const NEXT_PROBLEM = /; (?=[A-Za-z.]+: )/;

/**
 * A preview's binding problems as the form shows a 400's: each under the field it names, a KPI's
 * under the KPI, any other (the period read from the answer) on the binding's own line. A binding's
 * problems are one text, `; `-separated, each after the first led by its field.
 */
export const previewFieldErrors = (bindings: { problem: string | null }[], list = 'bindings'): FieldError[] =>
  bindings.flatMap((binding, index) =>
    (binding.problem ?? '')
      .split(NEXT_PROBLEM)
      .filter(Boolean)
      .map((problem) => {
        const field = PROBLEM_FIELD.exec(problem);
        if (field) return { path: `${list}[${index}].${field[1]}`, message: field[2] as string };
        if (/^(no KPI|KPI )/.test(problem)) return { path: `${list}[${index}].kpiId`, message: problem };
        return { path: `${list}[${index}]`, message: problem };
      }),
  );
