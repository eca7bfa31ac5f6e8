import type { Context } from 'aws-lambda';
import { runAlertCheck } from '../lib/alerts/check';
import { defineDeployment } from '../lib/deployment';
import { logger } from '../lib/logger';
import { db, publish } from '../lib/runtime';

/**
 * The sparse index gsi2 (KPIs with a cadence, keys by expiry day: Query only); each such KPI's
 * newest periods (Query of KPI#); the once-per-spell and once-per-threshold marks (Update of the
 * KPI and key items); publishing: the tenant's endpoints, a delivery per endpoint, the queue.
 */
export const deployment = defineDeployment({
  table: {
    Query: ['APIKEY#', 'KPI#'],
    UpdateItem: ['APIKEY#', 'KPI#'],
  },
  indexes: ['gsi2'],
  publishesWebhookEvents: true,
  trigger: {
    schedule: 'rate(15 minutes)',
  },
  timeout: 300,
});

/**
 * The alert check, run by an EventBridge schedule every 15 minutes (serverless.yml, checkAlerts):
 * KPIs gone quiet and keys about to expire become webhook events (lib/alerts/check.ts). Locally,
 * `npm run alerts:run` runs the same check.
 *
 * A run with events it could not publish fails: the function's Errors alarm then tells the operator,
 * and the check has taken those events' marks back, so the next run publishes them.
 */
export const handler = async (_event: unknown, context: Context) => {
  logger.addContext(context);
  const result = await runAlertCheck({ db, publish, now: Date.now() });
  logger.info('alert check', { ...result });
  if (result.failed > 0) {
    throw new Error(`${result.failed} alert events were not published; the next run tries them again.`);
  }
  return result;
};
