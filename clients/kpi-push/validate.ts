import { AppError } from '../../lib/errors';
import { parseInput } from '../../lib/http/validation';
import {
  asGiven,
  type GivenMeasurement,
  type MeasurementInput,
  measurementInputSchema,
} from '../../lib/push/measurement-schema';
import type { InputProblem, Row } from './input';

export interface ValidRow {
  line: number;
  /** As the row gave it: the service completes a period from the KPI's own (day, week, month…). */
  measurement: GivenMeasurement;
}

/**
 * Every row through the service's own schema and validation (lib/push/measurement-schema.ts,
 * lib/http/validation.ts), so a row passes here exactly when the service would accept it, with the
 * same messages. All problems are collected, not only the first.
 *
 * Rows are sent with the bounds they gave: only the service knows each KPI's period, which completes
 * them (a row without a period lands in its KPI's current period). Two rows with the same KPI and
 * period as given would overwrite each other, so they are a problem too.
 */
export const validateRows = (rows: Row[]): { valid: ValidRow[]; problems: InputProblem[] } => {
  const valid: ValidRow[] = [];
  const problems: InputProblem[] = [];
  const firstLine = new Map<string, number>();
  for (const { line, value } of rows) {
    let measurement: MeasurementInput;
    try {
      measurement = parseInput(measurementInputSchema, value);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      for (const { path, message } of error.errors ?? []) {
        problems.push(
          path === '(body)'
            ? { line, message: `${message} (a row must be an object)` }
            : { line, field: path, message },
        );
      }
      continue;
    }
    const identity = `${measurement.kpiId}|${measurement.periodStart}|${measurement.periodEnd}`;
    const first = firstLine.get(identity);
    if (first !== undefined) {
      problems.push({
        line,
        message: `same kpiId and period as line ${first}; the later row would replace it`,
      });
      continue;
    }
    firstLine.set(identity, line);
    valid.push({ line, measurement: asGiven(measurement) });
  }
  return { valid, problems: problems.sort((a, b) => a.line - b.line) };
};
