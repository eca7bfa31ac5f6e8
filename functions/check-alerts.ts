import type { Context } from 'aws-lambda';
import { runAlertCheck } from '../lib/alerts/check';
import { runTargetAlertCheck } from '../lib/alerts/targets';
import { defineDeployment } from '../lib/deployment';
import { logger } from '../lib/logger';
import { db, publish } from '../lib/runtime';

/**
 * The sparse index gsi2 (KPIs with a cadence, keys by expiry day: Query only); the tenant list and
 * each tenant's KPIs (gsi1, Query only) for the target check; each KPI's newest periods (Query of
 * KPI#); the once-per-spell, once-per-threshold and once-per-crossing marks (Update of the KPI and
 * key items); publishing: the tenant's endpoints, a delivery per endpoint, the queue.
 */
export const deployment = defineDeployment({
  table: {
    Query: ['APIKEY#', 'KPI#'],
    UpdateItem: ['APIKEY#', 'KPI#'],
  },
  indexes: ['gsi1', 'gsi2'],
  publishesWebhookEvents: true,
  trigger: {
    schedule: 'rate(15 minutes)',
  },
  timeout: 300,
});

/**
 * The alert check, run by an EventBridge schedule every 15 minutes (serverless.yml, checkAlerts):
 * KPIs gone quiet and keys about to expire become webhook events (lib/alerts/check.ts), and KPIs
 * crossing into off track or across even odds of their next target (lib/alerts/targets.ts). Locally,
 * `npm run alerts:run` runs the same check.
 *
 * A run with events it could not publish fails: the function's Errors alarm then tells the operator,
 * and the check has taken those events' marks back, so the next run publishes them.
 */
export const handler = async (_event: unknown, context: Context) => {
  logger.addContext(context);
  const now = Date.now();
  const [result, targets] = await Promise.all([
    runAlertCheck({ db, publish, now }),
    runTargetAlertCheck({ db, publish, now }),
  ]);
  logger.info('alert check', { ...result, targets });
  const failed = result.failed + targets.failed;
  if (failed > 0) {
    throw new Error(`${failed} alert events were not published; the next run tries them again.`);
  }
  return { ...result, targets };
};
