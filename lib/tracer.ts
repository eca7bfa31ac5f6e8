import { Tracer } from '@aws-lambda-powertools/tracer';
import { SERVICE_NAME } from './logger';

/**
 * X-Ray tracing through Powertools Tracer: each handler is a subsegment (lib/http/endpoint.ts) and each
 * DynamoDB call one inside it (the client is captured in lib/runtime.ts). Tracer turns itself off
 * outside Lambda (no `AWS_EXECUTION_ENV`: tests, serverless-offline), so the local stack traces nothing
 * and sends nothing; `POWERTOOLS_TRACE_ENABLED=false` turns it off on AWS too. Built in a pure
 * expression: a bundle that never uses it (the push functions and their authorizer) leaves Tracer and
 * the X-Ray SDK out.
 */
export const tracer = /* @__PURE__ */ new Tracer({ serviceName: SERVICE_NAME });
