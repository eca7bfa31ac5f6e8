// @ts-check
/**
 * Local Serverless plugin (serverless.yml `plugins`), active only under `serverless offline`: renders the
 * API's gateway responses (the `AWS::ApiGateway::GatewayResponse` resources of serverless.yml, from
 * infra/gateway-responses.json) the way API Gateway does, so the local stack answers a refused push
 * exactly as the deployed one ("the local stack keeps working unchanged for users").
 *
 * serverless-offline runs the push authorizer but answers its refusals with its own bodies (a hapi Boom
 * `{"statusCode":401,"error":"Unauthorized",...}`) and knows nothing of gateway responses. This plugin
 * adds an `onPreResponse` extension to serverless-offline's HTTP server that replaces a response refused
 * by the authorizer with the rendered gateway response of the same type: 401 → UNAUTHORIZED, 403 →
 * ACCESS_DENIED. Of the template language it needs `$context.requestId` and `$context.authorizer.<name>`:
 * the push authorizer denies a refused key with the problem in its context, which API Gateway puts
 * into the ACCESS_DENIED response. serverless-offline drops a denying authorizer's context, so this
 * plugin also records, per identity (the `x-api-key` and the caller's address, the push authorizer's
 * identity sources), the context of the authorizer's last answer (it wraps serverless-offline's Lambda
 * runner; only `serverless offline` loads this).
 *
 * serverless-offline also answers 401 when the authorizer fails (throws anything but `Unauthorized`,
 * or times out), where API Gateway answers AUTHORIZER_FAILURE, which the API renders as a 503 with
 * Retry-After: with DynamoDB down, a client would learn locally that its key is bad (401, final) where
 * AWS tells it to retry. The same wrapper counts such failures per identity, and a 401 of a request
 * with that identity takes one of them and is answered with AUTHORIZER_FAILURE instead. (The count, not
 * a flag: of concurrent requests with one identity, each failure turns exactly one 401.)
 *
 * Concurrent requests with one identity share one run of the authorizer, as API Gateway answers them
 * from one cached result: serverless-offline caches nothing and starts a worker (a cold start) for each
 * invocation it cannot give an idle one, so a burst of 150 pushes with one key ran 150 authorizers
 * beside its 150 pushes, on a loaded 2-core machine past their 60 s time-out, and each authorizer
 * that timed out answered a 503 (AUTHORIZER_FAILURE). Only runs in flight are shared, never a settled
 * answer: a request after them runs the authorizer again, so a revocation still counts as it did.
 *
 * A request that matches no route gets serverless-offline's own 404 (`{"error":"Serverless-offline:
 * route not found.","existingRoutes":[…]}`, from its catch-all route `/{p*}`); API Gateway answers it
 * with MISSING_AUTHENTICATION_TOKEN, which the API renders as a 404 problem document: so does this.
 */
const { randomUUID } = require('node:crypto');
const { sourceIpOf } = require('./serverless-offline-source-ip.cjs');

const RESPONSE_TYPE_BY_STATUS = { 401: 'UNAUTHORIZED', 403: 'ACCESS_DENIED' };

/** What API Gateway caches the push authorizer's answer by: the key and the caller's address. */
const identity = (/** @type {unknown} */ apiKey, /** @type {unknown} */ sourceIp) =>
  `${String(apiKey)} ${String(sourceIp ?? '')}`;

/**
 * `'value'` → `value`: static gateway response parameters are quoted string literals, in which a
 * quote is written `\'` (the Content-Security-Policy `default-src 'none'`).
 */
const staticValue = (/** @type {string} */ expression) =>
  /^'.*'$/s.test(expression) ? expression.slice(1, -1).replaceAll("\\'", "'") : undefined;

class ServerlessOfflineGatewayResponses {
  /** @param {any} serverless */
  constructor(serverless) {
    this.serverless = serverless;
    // Runs after serverless-offline's own `offline:start:init` (plugins listed later run later), when its
    // HTTP server exists.
    this.hooks = { 'offline:start:init': () => this.install() };
  }

  /** @returns {Record<string, { status: number; headers: Record<string, string>; template: string }>} */
  responses() {
    /** @type {any[]} */
    const groups = [this.serverless.service.resources ?? []].flat();
    /** @type {Record<string, { status: number; headers: Record<string, string>; template: string }>} */
    const byType = {};
    for (const group of groups) {
      for (const resource of Object.values(group?.Resources ?? {})) {
        if (resource?.Type !== 'AWS::ApiGateway::GatewayResponse') continue;
        const {
          ResponseType,
          StatusCode,
          ResponseParameters = {},
          ResponseTemplates = {},
        } = resource.Properties;
        /** @type {Record<string, string>} */
        const headers = {};
        for (const [name, expression] of Object.entries(ResponseParameters)) {
          const value = staticValue(String(expression));
          if (name.startsWith('gatewayresponse.header.') && value !== undefined) {
            headers[name.slice('gatewayresponse.header.'.length)] = value;
          }
        }
        byType[ResponseType] = {
          status: Number(StatusCode),
          headers,
          template: ResponseTemplates['application/json'] ?? '',
        };
      }
    }
    return byType;
  }

  /**
   * Remembers the context of every authorizer answer by the request's identity (`x-api-key` and the
   * address, the push authorizer's identity sources: an answer is the same for every request with
   * them), and counts its failures by identity. The address is in the event since
   * ./serverless-offline-source-ip.cjs put it there.
   * @param {Map<string, Record<string, unknown>>} contexts
   * @param {Map<string, number>} failures
   */
  async recordAuthorizerContexts(contexts, failures) {
    const { default: Lambda } = await import('serverless-offline/lambda');
    const wrapped = Symbol.for('strategy-service.authorizer-context');
    /** The authorizer run in progress for each identity: concurrent requests with it share its answer. */
    /** @type {Map<string, Promise<any>>} */
    const inFlight = new Map();
    const get = Lambda.prototype.get;
    Lambda.prototype.get = function (/** @type {string} */ functionKey) {
      const lambdaFunction = get.call(this, functionKey);
      if (lambdaFunction[wrapped]) return lambdaFunction;
      lambdaFunction[wrapped] = true;
      /** @type {any} */
      let event;
      const setEvent = lambdaFunction.setEvent.bind(lambdaFunction);
      const runHandler = lambdaFunction.runHandler.bind(lambdaFunction);
      lambdaFunction.setEvent = (/** @type {any} */ next) => {
        event = next;
        return setEvent(next);
      };
      lambdaFunction.runHandler = async () => {
        const ran = event;
        const apiKey = Object.entries(ran?.headers ?? {}).find(
          ([name]) => name.toLowerCase() === 'x-api-key',
        )?.[1];
        const key =
          apiKey === undefined ? undefined : identity(apiKey, ran?.requestContext?.identity?.sourceIp);
        const shared = key !== undefined && ran?.type === 'REQUEST';
        let run = shared ? inFlight.get(String(key)) : undefined;
        if (run === undefined) {
          run = runHandler();
          if (shared) {
            inFlight.set(String(key), run);
            run.then(
              () => inFlight.delete(String(key)),
              () => inFlight.delete(String(key)),
            );
          }
        }
        let result;
        try {
          result = await run;
        } catch (error) {
          // The Lambda authorizer contract: only the error `Unauthorized` is a refusal (401).
          const refusal = error === 'Unauthorized' || /** @type {any} */ (error)?.message === 'Unauthorized';
          if (shared && !refusal) failures.set(String(key), (failures.get(String(key)) ?? 0) + 1);
          throw error;
        }
        if (key && result?.policyDocument && result.context) contexts.set(String(key), result.context);
        return result;
      };
      return lambdaFunction;
    };
  }

  async install() {
    /** @type {Map<string, Record<string, unknown>>} */
    const contexts = new Map();
    /** @type {Map<string, number>} */
    const failures = new Map();
    await this.recordAuthorizerContexts(contexts, failures);
    /** Takes one recorded failure of the authorizer for this key, if there is one. */
    const failed = (/** @type {string} */ key) => {
      const count = failures.get(key) ?? 0;
      if (count === 0) return false;
      if (count === 1) failures.delete(key);
      else failures.set(key, count - 1);
      return true;
    };
    const offline = this.serverless.pluginManager.plugins.find(
      (/** @type {any} */ plugin) => plugin.constructor?.name === 'ServerlessOffline',
    );
    const server = offline?.internals?.().getApiGatewayServer?.();
    if (!server) throw new this.serverless.classes.Error('serverless-offline-gateway-responses: no server');
    const responses = this.responses();
    server.ext('onPreResponse', (/** @type {any} */ request, /** @type {any} */ h) => {
      const refused = request.response?.isBoom && request.auth?.error;
      const unrouted = request.route?.path === '/{p*}' && request.response?.statusCode === 404;
      const key = identity(request.headers['x-api-key'] ?? '', sourceIpOf(request));
      const refusedType = refused && RESPONSE_TYPE_BY_STATUS[request.response.output.statusCode];
      const type = unrouted
        ? 'MISSING_AUTHENTICATION_TOKEN'
        : refusedType === 'UNAUTHORIZED' && failed(key)
          ? 'AUTHORIZER_FAILURE'
          : refusedType;
      const gatewayResponse = type && responses[type];
      if (!gatewayResponse) return h.continue;
      const context = contexts.get(key) ?? {};
      const body = gatewayResponse.template
        .replaceAll('$context.requestId', randomUUID())
        .replace(/\$context\.authorizer\.(\w+)/g, (_, name) => String(context[name] ?? ''));
      const response = h.response(body).code(gatewayResponse.status);
      for (const [name, value] of Object.entries(gatewayResponse.headers)) response.header(name, value);
      return response;
    });
  }
}

module.exports = ServerlessOfflineGatewayResponses;
