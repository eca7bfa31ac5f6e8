import type { TestProject } from 'vitest/node';
import { freePort, startDynamoDbLocal } from '../../scripts/processes';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
  }
}

/** One DynamoDB Local for the whole integration run; each test file creates its own table in it. */
export async function setup(project: TestProject) {
  const dynamo = await startDynamoDbLocal(await freePort());
  project.provide('dynamodbEndpoint', dynamo.endpoint);
  return () => dynamo.stop();
}
