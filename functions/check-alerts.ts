import type { Context } from 'aws-lambda';
import { runAlertCheck } from '../lib/alerts/check';
import { logger } from '../lib/logger';
import { db, publish } from '../lib/runtime';

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
