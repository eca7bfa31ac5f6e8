// @ts-check
/**
 * Local Serverless plugin (serverless.yml `plugins`), active only under `serverless offline`: renders the
 * API's gateway responses (the `AWS::ApiGateway::GatewayResponse` resources of serverless.yml, from
 * infra/gateway-responses.json) the way API Gateway does, so the local stack answers a refused push
 * exactly as the deployed one (issue 10: "the local stack keeps working unchanged for users").
 *
 * serverless-offline runs the push authorizer but answers its refusals with its own bodies (a hapi Boom
 * `{"statusCode":401,"error":"Unauthorized",...}`) and knows nothing of gateway responses. This plugin
 * adds an `onPreResponse` extension to serverless-offline's HTTP server that replaces a response refused
 * by the authorizer with the rendered gateway response of the same type: 401 → UNAUTHORIZED, 403 →
 * ACCESS_DENIED. Of the template language it needs `$context.requestId` only. (serverless-offline also
 * answers 401 when the authorizer fails; on AWS that is AUTHORIZER_FAILURE, rendered as 503.)
 */
const { randomUUID } = require('node:crypto');

const RESPONSE_TYPE_BY_STATUS = { 401: 'UNAUTHORIZED', 403: 'ACCESS_DENIED' };

/** `'value'` → `value`: static gateway response parameters are quoted string literals. */
const staticValue = (/** @type {string} */ expression) =>
  /^'.*'$/s.test(expression) ? expression.slice(1, -1) : undefined;

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

  install() {
    const offline = this.serverless.pluginManager.plugins.find(
      (/** @type {any} */ plugin) => plugin.constructor?.name === 'ServerlessOffline',
    );
    const server = offline?.internals?.().getApiGatewayServer?.();
    if (!server) throw new this.serverless.classes.Error('serverless-offline-gateway-responses: no server');
    const responses = this.responses();
    server.ext('onPreResponse', (/** @type {any} */ request, /** @type {any} */ h) => {
      const refused = request.response?.isBoom && request.auth?.error;
      const type = refused && RESPONSE_TYPE_BY_STATUS[request.response.output.statusCode];
      const gatewayResponse = type && responses[type];
      if (!gatewayResponse) return h.continue;
      const body = gatewayResponse.template.replaceAll('$context.requestId', randomUUID());
      const response = h.response(body).code(gatewayResponse.status);
      for (const [name, value] of Object.entries(gatewayResponse.headers)) response.header(name, value);
      return response;
    });
  }
}

module.exports = ServerlessOfflineGatewayResponses;
