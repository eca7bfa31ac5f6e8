import * as z from 'zod/mini';
import { kpiTypeSchema } from './kpi';
import { calendarDate, id, timestamp } from './values';

/**
 * A stored measurement: the values of spec 2.5 for one KPI and period (its identity: one record per
 * KPI, periodStart and periodEnd), the record's own id and times, and where it came from. An absent
 * optional value is `null`.
 */
const TIMESTAMP = 'ISO 8601 date-time, UTC.';

/** Who wrote a value: a push with an API key, or a run of a pull integration; null when not recorded. */
export const writerSchema = z
  .nullable(
    z.union([
      z.object({ type: z.literal('apiKey'), id, prefix: z.string() }),
      z.object({ type: z.literal('integration'), id, name: z.string() }),
    ]),
  )
  .check(
    z.describe(
      '`{type: "apiKey", id, prefix}` for a push, `{type: "integration", id, name}` for a pull; `null` for a record written otherwise (the operator, before provenance was kept).',
    ),
  );
export type Writer = z.output<typeof writerSchema>;

/**
 * The values a write replaced, with their writer and time, kept on the record by the write itself
 * (no write of its own): when sources meet on one (KPI, period), the record says which value it
 * replaced and whether another source had written it.
 */
export const replacedSchema = z
  .nullable(
    z.object({
      actual: z.number(),
      target: z.nullable(z.number()),
      forecast: z.nullable(z.number()),
      writtenAt: timestamp.check(
        z.describe(`When the replaced values were written. ${'ISO 8601 date-time, UTC.'}`),
      ),
      writtenBy: writerSchema,
      otherSource: z
        .boolean()
        .check(
          z.describe(
            'True when the replaced values were written by another source than the current ones: a push over a pull, a pull over a push, another key or another integration.',
          ),
        ),
    }),
  )
  .check(
    z.describe(
      'The values the last write replaced, who wrote them and when; `null` for a measurement written once (or before this was kept).',
    ),
  );
export type Replaced = z.output<typeof replacedSchema>;

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
  replaced: replacedSchema,
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
