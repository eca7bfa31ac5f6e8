import * as z from 'zod/mini';
import { kpiTypeSchema } from './kpi';
import { calendarDate, id, timestamp } from './values';

/**
 * A stored measurement: the values of spec 2.5 for one KPI and period (its identity: one record per
 * KPI, periodStart and periodEnd), the record's own id and times, and where it came from. An absent
 * optional value is `null`.
 */
const TIMESTAMP = 'ISO 8601 date-time, UTC.';

/** The record as stored, described for every reader; a push answers it without its provenance. */
const recordFields = {
  id: id.check(z.describe('Stays the same when the measurement is replaced.')),
  kpiId: id,
  kpiType: kpiTypeSchema,
  actual: z.number(),
  target: z.nullable(z.number()),
  forecast: z.nullable(z.number()),
  periodStart: calendarDate,
  periodEnd: calendarDate,
  createdAt: timestamp.check(z.describe(`When the (KPI, period) was first pushed. ${TIMESTAMP}`)),
  updatedAt: timestamp.check(z.describe(`When it was last pushed. ${TIMESTAMP}`)),
};

/** The record without where it came from: what a push answers (the pusher knows its key). */
export const measurementCoreSchema = z.object(recordFields);

export const measurementSchema = z
  .object({
    ...recordFields,
    receivedAt: z
      .nullable(timestamp)
      .check(
        z.describe(
          `When the last push or pull of it arrived; \`null\` for a record written otherwise. ${TIMESTAMP}`,
        ),
      ),
    apiKeyId: z
      .nullable(id)
      .check(
        z.describe(
          'The key that pushed it last (its `id` in `GET /api-keys`); `null` for a record not written by push.',
        ),
      ),
    apiKeyPrefix: z
      .nullable(z.string())
      .check(z.describe('The first 8 characters of that key; `null` for a record not written by push.')),
    integrationId: z
      .nullable(id)
      .check(
        z.describe(
          'The pull integration that stored it last (`GET /integrations/pull`); `null` for a record not written by a pull.',
        ),
      ),
    integrationName: z
      .nullable(z.string())
      .check(
        z.describe('That integration’s name when it stored it; `null` for a record not written by a pull.'),
      ),
  })
  .check(
    z.meta({
      id: 'MeasurementRecord',
      description:
        'A stored measurement as the read endpoints show it: with where it came from. Absent optional values are `null`.',
    }),
  );
export type Measurement = z.output<typeof measurementSchema>;

/** The values of one period, without identity or provenance: a point of a chart. */
export const periodValuesSchema = z.pick(measurementCoreSchema, {
  periodStart: true,
  periodEnd: true,
  actual: true,
  target: true,
  forecast: true,
});
