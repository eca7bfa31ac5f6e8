/**
 * The service's own DynamoDB client (issue 11): the DocumentClient commands of `@aws-sdk/lib-dynamodb`
 * with the same names and shapes, in about 10 KB instead of the SDK's 200+ KB (README, "DynamoDB client").
 */
export {
  createDynamoDbClient,
  type DynamoDbClient,
  type DynamoDbClientOptions,
  type Handler,
  type HttpRequest,
  type HttpResponse,
  type Middleware,
} from './client';
export * from './commands';
export { type Credentials, type CredentialsProvider, fromEnv } from './credentials';
export {
  type CancellationReason,
  Crc32MismatchError,
  CredentialsError,
  DynamoDbError,
  RequestTimeoutError,
  type ResponseMetadata,
  UnstorableValueError,
} from './errors';
export {
  type AttributeValue,
  isMarshalledItem,
  type MarshalledItem,
  marshallItem,
  marshallValue,
  type NativeItem,
  unmarshallValue,
} from './marshalling';
