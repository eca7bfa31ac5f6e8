/** Where `npm run openapi` writes the document, relative to the repository root, and in which form. */
export const OPENAPI_FILE = 'openapi.json';

/** Two-space JSON with a final newline: stable, diff-friendly, and what the drift test compares. */
export const serializeOpenApi = (document: unknown): string => `${JSON.stringify(document, null, 2)}\n`;
