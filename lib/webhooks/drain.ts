import { type DeliveryDeps, deliverMessage } from './deliver';
import type { LocalQueue } from './local-queue';

/**
 * One pass over the local delivery queue, as the SQS event source and the worker do it on AWS: every
 * message due now is received and delivered once; a delivered (or dropped) message is deleted, one to
 * be tried again comes back after its wait.
 */
export const drainLocalQueue = async ({
  queue,
  deps,
}: {
  queue: LocalQueue;
  deps: DeliveryDeps;
}): Promise<{ received: number; done: number; retried: number }> => {
  const received = await queue.receive();
  let done = 0;
  for (const message of received) {
    const outcome = await deliverMessage(deps, message.body, message.receiveCount);
    if (outcome.kind === 'retry') await queue.retryLater(message.receipt, outcome.delaySeconds);
    else {
      await queue.delete(message.receipt);
      done += 1;
    }
  }
  return { received: received.length, done, retried: received.length - done };
};
