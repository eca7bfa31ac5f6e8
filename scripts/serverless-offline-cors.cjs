// @ts-check
/**
 * Local Serverless plugin: makes serverless-offline answer CORS the way the deployed REST API
 * does, so a browser caller that works locally also works on AWS.
 *
 * serverless-offline 14 (src/events/http/HttpServer.js, an `onPreResponse` extension) adds
 * `Access-Control-Allow-Origin: <the request's Origin>` and `Access-Control-Allow-Credentials: true`
 * to every answer of a REST route, and turns any OPTIONS request into a 200, whatever serverless.yml
 * says. API Gateway does neither: a Lambda proxy answer carries only the headers the Lambda set, and
 * OPTIONS exists only where an http event has `cors` (osls then adds a MOCK method that answers
 * allowed origins). This plugin wraps that extension and undoes exactly its changes: headers
 * `access-control-*` it added and an OPTIONS status it rewrote. What remains is what API Gateway
 * sends: the Lambda's own headers, and for routes with `cors` the preflight of hapi's route CORS,
 * configured by serverless-offline from the same `cors` setting. Difference left: an OPTIONS request
 * to a route without `cors` gets a status other than API Gateway's 403, but, as there, no
 * Access-Control-Allow-Origin, so a browser's preflight fails the same way.
 */
const { join } = require('node:path');

const HAPI_ID = '@hapi/hapi';

class ServerlessOfflineCors {
  /** @param {any} serverless */
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = { 'before:offline:start:init': () => patchHapi(serverless) };
  }
}

/** @param {any} serverless */
const patchHapi = (serverless) => {
  // The hapi that serverless-offline imports (its dependency), not whichever a project might have.
  const offlineDir = join(serverless.serviceDir, 'node_modules', 'serverless-offline');
  const hapiPath = require.resolve(HAPI_ID, { paths: [offlineDir] });
  const { Server } = require(hapiPath);
  // hapi exports a factory; its servers share the prototype of an instance (this one never listens).
  const prototype = Object.getPrototypeOf(Server({ autoListen: false }));
  if (prototype.ext.corsPatched) return;
  const originalExt = prototype.ext;
  /** @this {any} @param {any} events @param {any[]} rest */
  const ext = function (events, ...rest) {
    const [method] = rest;
    if (events !== 'onPreResponse' || typeof method !== 'function')
      return originalExt.call(this, events, ...rest);
    /** @param {any} request @param {any} h */
    const wrapped = function (request, h) {
      const response = request.response;
      const target = response?.isBoom ? response.output : response;
      if (!target?.headers) return method.call(this, request, h);
      const before = new Set(Object.keys(target.headers).map((name) => name.toLowerCase()));
      const statusCode = target.statusCode;
      const result = method.call(this, request, h);
      for (const name of Object.keys(target.headers)) {
        if (name.toLowerCase().startsWith('access-control-') && !before.has(name.toLowerCase())) {
          delete target.headers[name];
        }
      }
      if (request.method === 'options') target.statusCode = statusCode;
      return result;
    };
    return originalExt.call(this, events, wrapped, ...rest.slice(1));
  };
  ext.corsPatched = true;
  prototype.ext = ext;
};

module.exports = ServerlessOfflineCors;
