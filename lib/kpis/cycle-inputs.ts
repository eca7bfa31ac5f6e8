import * as z from 'zod/mini';
import { cycleStatusSchema } from '../domain/strategic-cycle';
import { calendarDate } from '../domain/values';

/** The fields of a strategic cycle as `POST` and `PATCH /strategic-cycles` take them. */
export const cycleInputFields = {
  name: z
    .string('name must be a string')
    .check(
      z.trim(),
      z.minLength(1, 'name must not be empty'),
      z.maxLength(200, 'name must be at most 200 characters'),
      z.describe('1 to 200 characters after trimming.'),
    ),
  startDate: calendarDate.check(z.describe('First day, `YYYY-MM-DD`.')),
  endDate: calendarDate.check(z.describe('Last day, `YYYY-MM-DD`, on or after `startDate`.')),
  description: z
    .string('description must be a string')
    .check(
      z.trim(),
      z.maxLength(2000, 'description must be at most 2000 characters'),
      z.describe('What the cycle is about.'),
    ),
  status: cycleStatusSchema.check(z.describe('`planned`, `active` or `closed`.')),
};
