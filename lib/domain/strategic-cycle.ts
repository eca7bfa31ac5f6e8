import * as z from 'zod/mini';
import { calendarDate, id, timestamp } from './values';

/** A strategic cycle of a tenant (spec 4): a named span of calendar dates; it may start and end on one day. */
export const strategicCycleSchema = z
  .object({
    id,
    name: z.string(),
    startDate: calendarDate.check(z.describe('First day, `YYYY-MM-DD`.')),
    endDate: calendarDate.check(z.describe('Last day, `YYYY-MM-DD`.')),
    createdAt: timestamp.check(z.describe('ISO 8601 date-time, UTC.')),
  })
  .check(z.meta({ id: 'StrategicCycle', description: 'A strategic cycle of the caller’s tenant.' }));
export type StrategicCycle = z.output<typeof strategicCycleSchema>;
