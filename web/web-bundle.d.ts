/**
 * Pages built by the `web-bundle` esbuild plugin (scripts/esbuild-plugins.cjs): `web/<name>/page.html`
 * with `web/<name>/index.ts` and `web/<name>/page.css` inlined, and the Content-Security-Policy allowing
 * exactly those.
 */
declare module 'web-bundle:*' {
  export const html: string;
  export const contentSecurityPolicy: string;
}

/** The API reference page (scripts/esbuild-api-docs.cjs): HTML, its CSP, and the files it loads by name. */
declare module 'api-docs:swagger-ui' {
  export const html: string;
  export const contentSecurityPolicy: string;
  export const assets: Record<string, { contentType: string; body: string }>;
}

/** The problem types' pages (scripts/esbuild-api-docs.cjs): the index, and one page per slug. */
declare module 'api-docs:problems' {
  export const index: string;
  export const pages: Record<string, string>;
}
