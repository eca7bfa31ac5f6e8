import type { Database } from '../db/client';
import { type LocalQueue, localQueue } from '../webhooks/local-queue';

/** The name of the local stage's pull queue (its partition is `QUEUE#<name>`). */
export const PULL_QUEUE_NAME = 'pull-runs';

/**
 * The local stage's substitute for the pull queue (serverless.yml, PullRunQueue), kept in the table as
 * the webhook queue is: the scheduler sends one message per claimed slot, `npm run pull:run` receives
 * them. A message received 3 times without being deleted goes to the dead-letter queue, as on AWS.
 */
export const pullLocalQueue = (db: Database, now?: () => number): LocalQueue =>
  localQueue(db, {
    name: PULL_QUEUE_NAME,
    maxReceiveCount: 3,
    visibilityTimeoutSeconds: 360,
    ...(now ? { now } : {}),
  });
