// @ts-check
/**
 * Local Serverless plugin: gives the push authorizer, under serverless-offline, the caller's address
 * in `requestContext.identity.sourceIp`, where API Gateway puts it, so that a key limited to some
 * source addresses is allowed and refused locally exactly as on AWS.
 *
 * API Gateway's REQUEST authorizer event carries `requestContext.identity` (sourceIp, userAgent, …),
 * and the handler's proxy event carries the same. serverless-offline 14 builds the handler's event
 * with `sourceIp` (hapi's `request.info.remoteAddress`), but the authorizer's event without any
 * `identity` (src/events/http/createAuthScheme.js): locally the authorizer would see no address and
 * refuse every key with an allowlist. It builds that event inside its auth scheme's `authenticate(request)`
 * and hands it to the authorizer's Lambda runner (`setEvent`) before the first `await`, so this plugin
 *
 * - wraps every auth scheme hapi registers (patched before serverless-offline creates its server), so
 *   that while `authenticate` runs synchronously the request being authorized is known, and
 * - wraps the Lambda runner's `setEvent`, which adds `identity` to a REQUEST authorizer's event from
 *   that request: its address as API Gateway names it (an IPv4 client by its IPv4 address, never as an
 *   IPv4-mapped IPv6 one) and its User-Agent.
 *
 * Of the identity sources (serverless.yml `custom.pushAuthorizer.identitySource`) serverless-offline
 * reads only the first, the `x-api-key` header, and caches no authorizer answer: every request runs
 * the authorizer. tests/support/api-gateway.ts holds the cache per key and address, as API Gateway does.
 */
const { join } = require('node:path');

/** The address of a hapi request as API Gateway reports it: IPv4-mapped IPv6 as plain IPv4. */
const sourceIpOf = (/** @type {any} */ request) => {
  const address = String(request.info?.remoteAddress ?? '');
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address) ? address.slice('::ffff:'.length) : address;
};

class ServerlessOfflineSourceIp {
  /** @param {any} serverless */
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = { 'before:offline:start:init': () => this.install() };
  }

  async install() {
    // The hapi that serverless-offline imports (its dependency), not whichever a project might have.
    const offlineDir = join(this.serverless.serviceDir, 'node_modules', 'serverless-offline');
    const Auth = require(require.resolve('@hapi/hapi/lib/auth.js', { paths: [offlineDir] }));
    const marker = Symbol.for('strategy-service.source-ip');
    if (Auth.prototype.scheme[marker]) return;
    /** The request whose authorizer event is being built: set only while `authenticate` runs synchronously. */
    /** @type {any} */
    let authorizing;
    const scheme = Auth.prototype.scheme;
    /** @this {any} @param {string} name @param {(server: any, options: any) => any} define */
    const wrappedScheme = function (name, define) {
      return scheme.call(this, name, (/** @type {any} */ server, /** @type {any} */ options) => {
        const strategy = define(server, options);
        const authenticate = strategy.authenticate;
        return {
          ...strategy,
          /** @this {any} @param {any} request @param {any} h */
          authenticate(request, h) {
            authorizing = request;
            try {
              return authenticate.call(this, request, h);
            } finally {
              authorizing = undefined;
            }
          },
        };
      });
    };
    wrappedScheme[marker] = true;
    Auth.prototype.scheme = wrappedScheme;

    const { default: Lambda } = await import('serverless-offline/lambda');
    const get = Lambda.prototype.get;
    Lambda.prototype.get = function (/** @type {string} */ functionKey) {
      const lambdaFunction = get.call(this, functionKey);
      if (lambdaFunction[marker]) return lambdaFunction;
      lambdaFunction[marker] = true;
      const setEvent = lambdaFunction.setEvent.bind(lambdaFunction);
      lambdaFunction.setEvent = (/** @type {any} */ event) => {
        if (
          authorizing &&
          event?.type === 'REQUEST' &&
          event.requestContext &&
          !event.requestContext.identity
        ) {
          event.requestContext.identity = {
            sourceIp: sourceIpOf(authorizing),
            userAgent: authorizing.headers?.['user-agent'] ?? null,
          };
        }
        return setEvent(event);
      };
      return lambdaFunction;
    };
  }
}

module.exports = ServerlessOfflineSourceIp;
module.exports.sourceIpOf = sourceIpOf;
