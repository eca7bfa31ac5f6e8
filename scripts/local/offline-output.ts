/**
 * What `npm start` shows of serverless-offline's output. Before the stack answers, serverless-offline
 * lists every function's invoke name (one line each) and prints every route in a box (two lines per
 * route): about 140 lines for this service. The start's summary names the pages and /api/docs lists
 * the routes, so both lists only push the summary off the screen. Everything else (the handlers' log
 * lines, warnings, errors) is shown.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes are control characters
const ANSI = /\u001b\[[0-9;]*m/g;

/**
 * A line of the route box (drawn with box-drawing characters by boxen, coloured or not), or of the
 * list of invoke names ("   * apiDocs: strategy-service-local-apiDocs") with its heading.
 */
export const isRouteTableLine = (line: string): boolean => {
  const text = line.replace(ANSI, '');
  return (
    /^\s*[┌│└╭╰]/.test(text) ||
    /^\s+\* [\w-]+: [\w-]+$/.test(text) ||
    text.startsWith('Function names exposed for local invocation')
  );
};
