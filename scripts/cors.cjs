// @ts-check
/**
 * serverless.yml `custom.jwtCors: ${file(./scripts/cors.cjs):jwtCors}`: the CORS setting of
 * the JWT endpoints' http events, from the stage parameter `corsOrigins` (comma-separated origins).
 *
 * Empty (the default): `false`, so API Gateway has no OPTIONS method and a browser's preflight fails;
 * no origin is allowed. Otherwise the origins, with the headers a browser caller of the JWT endpoints
 * sends, and without credentials (the API takes bearer tokens; the login's device cookie is for the
 * pages under the API's own origin, and other origins send the token as a field). The Lambdas echo an
 * allowed Origin on the actual response (lib/http/observability.ts `cors`, CORS_ALLOWED_ORIGINS).
 */
// The rule and the list are the Lambdas' own (lib/config.ts, CORS_ALLOWED_ORIGINS), loaded through
// tsx as the other scripts are, so the template and the functions never disagree on an origin.
const { require: requireTs } = require('tsx/cjs/api');
/** @type {{ ORIGIN_LIST: RegExp, corsOrigins: (config: { CORS_ALLOWED_ORIGINS: string }) => string[] }} */
const { ORIGIN_LIST, corsOrigins } = requireTs('../lib/config.ts', __filename);

/** @param {string} value */
const jwtCorsFor = (value) => {
  if (!ORIGIN_LIST.test(value)) {
    throw new Error(`corsOrigins: not comma-separated origins (https://host[:port]): ${value}`);
  }
  const origins = corsOrigins({ CORS_ALLOWED_ORIGINS: value });
  if (origins.length === 0) return false;
  return {
    origins,
    headers: ['Content-Type', 'Authorization', 'X-Tenant-ID'],
    allowCredentials: false,
    maxAge: 600,
  };
};

module.exports = {
  /** @param {{ resolveVariable: (address: string) => Promise<unknown> }} api */
  jwtCors: async ({ resolveVariable }) =>
    jwtCorsFor(String((await resolveVariable('param:corsOrigins')) ?? '')),
  jwtCorsFor,
};
