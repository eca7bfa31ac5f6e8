import * as z from 'zod/mini';
import {
  type WebhookDelivery,
  type WebhookEndpoint,
  webhookDeliverySchema,
  webhookEndpointSchema,
} from '../domain/webhook';
import type { CreatedEndpoint } from './service';

/**
 * What clients see of endpoints and deliveries, derived from the entities (lib/domain/webhook.ts):
 * never the signing secret after creation, and not the tenant, which is the caller's own.
 */
export const webhookViewSchema = z
  .omit(webhookEndpointSchema, { tenantId: true })
  .check(z.meta({ id: 'WebhookEndpoint', description: 'A webhook endpoint; never its secret.' }));

export const createdWebhookViewSchema = z
  .extend(z.omit(webhookEndpointSchema, { tenantId: true }), {
    secret: z
      .string()
      .check(
        z.describe(
          'The signing secret (`whsec_` and base64): in this response only. Verify every delivery with it (docs/integration.md).',
        ),
      ),
  })
  .check(
    z.meta({ id: 'CreatedWebhookEndpoint', description: 'A new endpoint with its secret, shown once.' }),
  );

export const deliveryViewSchema = z.omit(webhookDeliverySchema, { tenantId: true }).check(
  z.meta({
    id: 'WebhookDelivery',
    description:
      'One event sent to one endpoint, with every attempt; `payload` is the body every attempt sends.',
  }),
);

export const webhookView = ({ tenantId: _tenant, ...endpoint }: WebhookEndpoint) => endpoint;
export const createdWebhookView = ({ tenantId: _tenant, ...created }: CreatedEndpoint) => created;
export const deliveryView = ({ tenantId: _tenant, ...delivery }: WebhookDelivery) => delivery;
