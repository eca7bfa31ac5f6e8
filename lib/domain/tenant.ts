import * as z from 'zod/mini';
import { FEATURES, PLANS } from './plan';
import { id, timestamp } from './values';

/** An organization: every user, API key and KPI belongs to one (spec 1). */
export const tenantSchema = z.object({
  id,
  name: z.string(),
  plan: z.enum(PLANS),
  features: z.array(z.enum(FEATURES)),
  active: z.boolean(),
  createdAt: timestamp,
  updatedAt: timestamp,
  /**
   * The tenant's API Gateway API key, on its tier's usage plan: the push authorizer returns `value` as
   * the usage identifier, so API Gateway throttles and meters the tenant's requests. Made by the
   * service, never shown to anyone (it grants nothing: the API's key source is the authorizer).
   * Absent on the local stack, where there is no API Gateway.
   */
  usageKey: z.optional(z.object({ id: z.string(), value: z.string() })),
});
export type Tenant = z.output<typeof tenantSchema>;
