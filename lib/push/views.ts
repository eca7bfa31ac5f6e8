import * as z from 'zod/mini';
import { type Measurement, measurementCoreSchema } from '../domain/measurement';
import { id } from '../domain/values';

/**
 * What a push answers of a measurement: the stored record without where it came from (the pusher knows
 * its key). Derived from the measurement entity (lib/domain/measurement.ts).
 */
export const pushedMeasurementSchema = measurementCoreSchema.check(
  z.meta({
    id: 'Measurement',
    description: 'A stored measurement, as a push answers it. Absent optional values are `null`.',
  }),
);

/** What a dry run answers: the record a push would store; `id` is null for one that does not exist yet. */
export const plannedMeasurementSchema = z
  .extend(measurementCoreSchema, {
    id: z
      .nullable(id)
      .check(z.describe('The stored measurement’s id when it exists (`updated`); `null` for a new one.')),
  })
  .check(
    z.meta({
      id: 'PlannedMeasurement',
      description: 'What a push would store (`?dryRun=true`): the stored record’s shape.',
    }),
  );

export const pushStatusSchema = z.enum(['created', 'updated']);

type Provenance = Pick<
  Measurement,
  'receivedAt' | 'apiKeyId' | 'apiKeyPrefix' | 'integrationId' | 'integrationName'
>;

/** A measurement (stored, or planned by a dry run) as a push answers it: its provenance left out. */
export const pushedMeasurement = <M extends Provenance>({
  receivedAt: _receivedAt,
  apiKeyId: _apiKeyId,
  apiKeyPrefix: _apiKeyPrefix,
  integrationId: _integrationId,
  integrationName: _integrationName,
  ...measurement
}: M): Omit<M, keyof Provenance> => measurement;

/** A batch's answer: each measurement (stored, or planned) with its index in the request. */
export const pushedItems = <M extends Provenance, S>(items: { status: S; measurement: M }[]) =>
  items.map(({ status, measurement }, index) => ({
    index,
    status,
    measurement: pushedMeasurement(measurement),
  }));
