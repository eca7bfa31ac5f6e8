// @ts-check
/**
 * Local Serverless plugin, active only under `serverless offline`: runs at most
 * LOCAL_FUNCTION_CONCURRENCY (default 8) invocations of each function at once, in the workers it
 * already has; later ones wait for one to finish, as they would wait for a container on a machine
 * that had only these.
 *
 * serverless-offline starts a new worker thread (a cold start: a V8 isolate, the bundle loaded, a
 * DynamoDB client) for every invocation that finds no idle worker of its function, and keeps each
 * to its function's time-out from its start. A burst of 150 pushes thus started 150 cold workers on
 * the shared 2-core machine, which took them all past their 60 s: the emulator answered 504 to most,
 * a load AWS spreads over 150 machines. Waiting here, before a worker is chosen, a request's time-out
 * starts with its run; its answer is the one it would get, later.
 *
 * Authorizers are left as they are: ./serverless-offline-source-ip.cjs gives an authorizer's event its
 * address while serverless-offline builds it, synchronously, and ./serverless-offline-gateway-responses.cjs
 * shares one authorizer run among the concurrent requests with one identity already.
 */
const DEFAULT_CONCURRENCY = 8;

class ServerlessOfflineConcurrency {
  /** @param {any} serverless */
  constructor(serverless) {
    this.serverless = serverless;
    // After the other local plugins (listed before this one), so that their wrappers run inside it.
    this.hooks = { 'offline:start:init': () => this.install() };
  }

  /** The functions that are some route's authorizer. */
  authorizers() {
    const names = new Set();
    for (const fn of Object.values(this.serverless.service.functions ?? {})) {
      for (const event of /** @type {any} */ (fn).events ?? []) {
        const name = event?.http?.authorizer?.name;
        if (typeof name === 'string') names.add(name);
      }
    }
    return names;
  }

  async install() {
    const limit = Number(process.env.LOCAL_FUNCTION_CONCURRENCY ?? DEFAULT_CONCURRENCY);
    if (!(limit > 0)) return;
    const authorizers = this.authorizers();
    const { default: Lambda } = await import('serverless-offline/lambda');
    /** Per function: invocations running, and those waiting for one to end. */
    /** @type {Map<string, { running: number; waiting: (() => void)[] }>} */
    const slots = new Map();
    const acquire = async (/** @type {string} */ key) => {
      const slot = slots.get(key) ?? { running: 0, waiting: [] };
      slots.set(key, slot);
      if (slot.running >= limit) await new Promise((resolve) => slot.waiting.push(() => resolve(undefined)));
      else slot.running += 1;
      return () => {
        const next = slot.waiting.shift();
        // The slot passes straight to the next in line; only with nobody waiting is it freed.
        if (next) next();
        else slot.running -= 1;
      };
    };
    const get = Lambda.prototype.get;
    Lambda.prototype.get = function (/** @type {string} */ functionKey) {
      if (authorizers.has(functionKey)) return get.call(this, functionKey);
      /** @type {any} */
      let event;
      /** @type {any} */
      let clientContext;
      // The worker is chosen when the invocation's turn comes: an idle one then, not a new one now.
      return {
        setEvent: (/** @type {any} */ next) => {
          event = next;
        },
        setClientContext: (/** @type {any} */ next) => {
          clientContext = next;
        },
        runHandler: async () => {
          const release = await acquire(functionKey);
          try {
            const lambdaFunction = get.call(this, functionKey);
            if (clientContext !== undefined) lambdaFunction.setClientContext(clientContext);
            lambdaFunction.setEvent(event);
            return await lambdaFunction.runHandler();
          } finally {
            release();
          }
        },
      };
    };
  }
}

module.exports = ServerlessOfflineConcurrency;
