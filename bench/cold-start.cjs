// @ts-check
/**
 * One cold start (bench/cold.ts): `node bench/cold-start.cjs <handler file> [<event JSON>]` requires the
 * handler, builds its event, calls it once and prints `COLD {"load","total","answer"}`: both times in ms
 * from the start of the require, as Lambda's INIT and first invocation add up for the caller.
 */
const [file, given] = process.argv.slice(2);
const t0 = performance.now();
const m = require(/** @type {string} */ (file));
const t1 = performance.now();

const route = m.route;
const method = route ? String(route.method).toUpperCase() : 'GET';
// A route's path parameters get a well-formed id; without a route the handler gets an empty trigger.
const path = route
  ? `/api${String(route.path).replace(/\{[^}]+\}/g, '00000000-0000-7000-8000-000000000000')}`
  : '/';
const event = given
  ? JSON.parse(given)
  : route
    ? {
        httpMethod: method,
        path,
        resource: path,
        headers: {},
        multiValueHeaders: {},
        queryStringParameters: null,
        multiValueQueryStringParameters: null,
        pathParameters: null,
        stageVariables: null,
        body: null,
        isBase64Encoded: false,
        requestContext: {
          requestId: 'cold',
          path,
          stage: 'prod',
          httpMethod: method,
          identity: { sourceIp: '127.0.0.1', userAgent: 'bench' },
          authorizer: null,
        },
      }
    : { Records: [] };
const context = {
  getRemainingTimeInMillis: () => 10_000,
  awsRequestId: 'cold',
  functionName: 'cold',
  callbackWaitsForEmptyEventLoop: true,
};

/** @param {string} answer */
const done = (answer) => {
  const t2 = performance.now();
  process.stdout.write(`\nCOLD ${JSON.stringify({ load: t1 - t0, total: t2 - t0, answer })}\n`);
  process.exit(0);
};

/** @param {any} r */
const answerOf = (r) =>
  r?.statusCode
    ? String(r.statusCode)
    : r?.policyDocument
      ? r.policyDocument.Statement.map((/** @type {{ Effect: string }} */ s) => s.Effect.toLowerCase()).join(
          '+',
        )
      : 'ok';

Promise.resolve()
  .then(() => m.handler(event, context))
  .then(
    (r) => done(answerOf(r)),
    (e) => done(`error: ${e?.message}`),
  );
