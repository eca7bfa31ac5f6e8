import type { TestProject } from 'vitest/node';
import { freePort, startDynamoDbLocal, stopGroup } from '../../scripts/local/processes';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
  }
}

/** One DynamoDB Local for the whole integration run; each test file creates its own table in it. */
export async function setup(project: TestProject) {
  const dynamo = await startDynamoDbLocal(await freePort());
  project.provide('dynamodbEndpoint', dynamo.endpoint);
  // The JVM leads its own process group, so it outlives a test process that is stopped by a signal
  // before the teardown runs (Ctrl-C, or Stryker ending its test runners in `npm run mutate`).
  const stopNow = () => stopGroup(dynamo.process, 'SIGKILL');
  const onSignal = (signal: NodeJS.Signals) => {
    stopNow();
    process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
  };
  process.once('exit', stopNow);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return async () => {
    process.off('exit', stopNow);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await dynamo.stop();
  };
}
