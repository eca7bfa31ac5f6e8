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
const ORIGIN = /^https?:\/\/[A-Za-z0-9.-]+(?::\d{1,5})?$/;

/** @param {string} value */
const parseOrigins = (value) =>
  value
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);

/** @param {string} value */
const jwtCorsFor = (value) => {
  const origins = parseOrigins(value);
  const invalid = origins.filter((origin) => !ORIGIN.test(origin));
  if (invalid.length > 0) {
    throw new Error(`corsOrigins: not an origin (https://host[:port]): ${invalid.join(', ')}`);
  }
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
