import * as z from 'zod/mini';
import { calendarDate, id, timestamp } from './values';

/** Where a cycle stands: planned (the default of a new one), active or closed. */
export const CYCLE_STATUSES = ['planned', 'active', 'closed'] as const;
export const cycleStatusSchema = z.enum(CYCLE_STATUSES, {
  message: `status must be one of ${CYCLE_STATUSES.join(', ')}`,
});
export type CycleStatus = z.output<typeof cycleStatusSchema>;

/** A strategic cycle of a tenant (spec 4): a named span of calendar dates; it may start and end on one day. */
export const strategicCycleSchema = z
  .object({
    id,
    name: z.string(),
    startDate: calendarDate.check(z.describe('First day, `YYYY-MM-DD`.')),
    endDate: calendarDate.check(z.describe('Last day, `YYYY-MM-DD`.')),
    description: z.optional(z.string().check(z.describe('What the cycle is about, when set.'))),
    status: cycleStatusSchema.check(
      z.describe(
        '`planned` (a new cycle), `active` or `closed`; a cycle stored before cycles had one is `active`.',
      ),
    ),
    createdAt: timestamp.check(z.describe('ISO 8601 date-time, UTC.')),
  })
  .check(z.meta({ id: 'StrategicCycle', description: 'A strategic cycle of the caller’s tenant.' }));
export type StrategicCycle = z.output<typeof strategicCycleSchema>;
