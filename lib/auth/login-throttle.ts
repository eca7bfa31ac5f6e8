import { isIP } from 'node:net';
import type { Database } from '../db/client';
import { keys } from '../db/keys';
import {
  type AttemptCounter,
  clearAttempts,
  delayAttempts,
  type ReservationDelay,
  readAttemptCounters,
  releaseAttempt,
  reserveAttempt,
} from '../db/login-attempts';
import { AppError } from '../errors';
import { settleAll } from '../promises';

/**
 * Brute-force protection of login that hurts the attacker, not the victim. Failures are counted per
 * e-mail and source address, so a correct password from a source that has not failed is never refused
 * because of another source's failures; per source address, so one source cannot guess across many
 * e-mails; and per e-mail, as a ceiling only a distributed attack reaches, which alerts operators.
 *
 * Past the ceiling, OWASP's device cookies decide who still gets in at once: an attempt that presents
 * a device token of the account (lib/auth/tokens.ts, given at every successful login) keeps the
 * per-source rules, as long as that token's own failures stay under `maxFailures`; every other
 * attempt, from whatever source, waits for one of the account's `newDeviceAttemptsPerMinute`. No one
 * can lock the account out, and guessing from fresh addresses gains nothing.
 */
export interface LoginThrottlePolicy {
  /** Length of each counter's window, which opens at its first attempt. */
  windowSeconds: number;
  /** Failures per e-mail from one source, after which it gets 429 until the window ends. */
  maxFailures: number;
  /** Failures from one source over all e-mails, after which it gets 429 until the window ends. */
  maxFailuresPerSource: number;
  /**
   * Failures per e-mail over all sources. Reaching it alarms (the `LoginCeilingReached` metric); past
   * it, for the rest of its window, only attempts with a device token of the account are let in at
   * once, and the others share `newDeviceAttemptsPerMinute`.
   */
  emailCeiling: number;
  /** Past the ceiling: the account's attempts without its device token, per minute over all sources. */
  newDeviceAttemptsPerMinute: number;
  /**
   * Failures per e-mail and source that cost no wait; each one after them makes the source wait before
   * its next attempt, 1 s and then twice as long each time (the progressive delay).
   */
  freeFailures: number;
}

/**
 * The stage's policy, from LOGIN_MAX_FAILURES, LOGIN_MAX_FAILURES_PER_SOURCE,
 * LOGIN_FAILURE_CEILING_PER_EMAIL, LOGIN_NEW_DEVICE_ATTEMPTS_PER_MINUTE and
 * LOGIN_LOCKOUT_WINDOW_SECONDS: one policy for every route that checks a secret a person holds
 * (login, a one-time link, the current password). Three failures per e-mail and source are free; then
 * the source waits 1 s, 2 s, 4 s… before each next.
 */
export const lockoutPolicy = (config: {
  LOGIN_LOCKOUT_WINDOW_SECONDS: number;
  LOGIN_MAX_FAILURES: number;
  LOGIN_MAX_FAILURES_PER_SOURCE: number;
  LOGIN_FAILURE_CEILING_PER_EMAIL: number;
  LOGIN_NEW_DEVICE_ATTEMPTS_PER_MINUTE: number;
}): LoginThrottlePolicy => ({
  windowSeconds: config.LOGIN_LOCKOUT_WINDOW_SECONDS,
  maxFailures: config.LOGIN_MAX_FAILURES,
  maxFailuresPerSource: config.LOGIN_MAX_FAILURES_PER_SOURCE,
  emailCeiling: config.LOGIN_FAILURE_CEILING_PER_EMAIL,
  newDeviceAttemptsPerMinute: config.LOGIN_NEW_DEVICE_ATTEMPTS_PER_MINUTE,
  freeFailures: 3,
});

/** Where the attempts come from, as the counters key it. */
export type Source = string;

/**
 * The source address of a request, as the counters key it: an IPv4 address as it is, an IPv6 address
 * as its /64 (one subscriber gets a whole /64, so counting single IPv6 addresses would count nothing),
 * anything else (a direct invocation without a source) as one shared `unknown`.
 */
export const sourceOf = (address: string | undefined | null): Source => {
  // Stryker disable next-line StringLiteral: any text that is no address gives 'unknown' alike
  const text = (address ?? '').trim();
  if (isIP(text) === 4) return text;
  if (isIP(text) !== 6) return 'unknown';
  // Stryker disable next-line StringLiteral,MethodExpression: groups are parsed as hex, whatever their case; a tail's default only adds groups after the fourth
  const [head = '', tail = ''] = text.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  // Stryker disable next-line ConditionalExpression,ArrayDeclaration,StringLiteral: an empty or dummy right part only moves groups after the fourth
  const right = tail === '' ? [] : tail.split(':');
  // An IPv4-mapped or -embedded tail stands for two groups; only the first four groups matter here.
  const groups = [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  const prefix = groups.slice(0, 4).map((group) => Number.parseInt(group, 16).toString(16));
  return `${prefix.join(':')}::/64`;
};

/** The wait before the next attempt after `failures` failures of one e-mail from one source. */
export const delayAfter = (failures: number, policy: LoginThrottlePolicy): number =>
  failures <= policy.freeFailures
    ? 0
    : Math.min(2 ** (failures - policy.freeFailures - 1) * 1000, policy.windowSeconds * 1000);

/** The window of the new devices' attempts past the ceiling: a minute. */
export const NEW_DEVICE_WINDOW_SECONDS = 60;

/** The counters of an attempt, as they stood before it. */
export interface Counters {
  fromSource: AttemptCounter | undefined;
  ofSource: AttemptCounter | undefined;
  ofEmail: AttemptCounter | undefined;
  /** The e-mail's attempts without a device token of the account in the current minute. */
  newDevices?: AttemptCounter | undefined;
  /** The failures with the device token the attempt presents, past the ceiling. */
  device?: AttemptCounter | undefined;
}

/**
 * How an attempt is let in: below the e-mail's ceiling as every attempt (`open`); past it, by a device
 * token of the account (`device`) or as a new device, which takes one of the minute's attempts
 * (`new-device`).
 */
export type Admission = 'open' | 'device' | 'new-device';

type Refusal = { retryAfterMs: number; detail: string };

/**
 * Whether an attempt may be verified, from the counters alone (so an unknown e-mail is judged exactly
 * like a known one): the refusal, or undefined, and how it is let in. `deviceOfAccount`: it presents
 * a valid device token of the e-mail's account.
 */
export const judge = (
  counters: Counters,
  policy: LoginThrottlePolicy,
  now: number,
  {
    deviceOfAccount = false,
    admission = admissionOf(counters, policy, deviceOfAccount),
  }: { deviceOfAccount?: boolean; admission?: Admission } = {},
): { refusal: Refusal | undefined; admission: Admission } => {
  const { fromSource, ofSource, newDevices, device } = counters;
  // An attempt that read its clock before a parallel one opened the window would see the window end
  // more than a window away: no wait is ever longer than a window.
  const refusal = (retryAfterMs: number, detail: string): Refusal => ({
    retryAfterMs: Math.min(retryAfterMs, policy.windowSeconds * 1000),
    detail,
  });
  if (ofSource && ofSource.count >= policy.maxFailuresPerSource) {
    return {
      admission,
      refusal: refusal(ofSource.windowEndsAt - now, 'Too many failed logins from this address.'),
    };
  }
  if (fromSource && fromSource.count >= policy.maxFailures) {
    return {
      admission,
      refusal: refusal(
        fromSource.windowEndsAt - now,
        'Too many failed logins for this e-mail from this address.',
      ),
    };
  }
  if (fromSource && fromSource.retryAt > now) {
    return {
      admission,
      refusal: refusal(
        fromSource.retryAt - now,
        'Wait before the next login for this e-mail from this address.',
      ),
    };
  }
  if (admission === 'new-device' && newDevices && newDevices.count >= policy.newDeviceAttemptsPerMinute) {
    return {
      admission,
      refusal: refusal(
        newDevices.windowEndsAt - now,
        'Too many failed logins for this e-mail: a device that has not signed in to it waits its turn.',
      ),
    };
  }
  if (admission === 'device' && device && device.count >= policy.maxFailures) {
    return {
      admission,
      refusal: refusal(device.windowEndsAt - now, 'Too many failed logins for this e-mail from this device.'),
    };
  }
  return { admission, refusal: undefined };
};

/**
 * Below the ceiling every attempt is `open`. Past it, a device token of the account lets an attempt
 * in as `device` while the token's own failures stay under `maxFailures` (a stolen token is no way
 * around the ceiling); without one, or with one that failed too often, it is a `new-device` attempt.
 */
const admissionOf = (
  { ofEmail, device }: Counters,
  policy: LoginThrottlePolicy,
  deviceOfAccount: boolean,
): Admission => {
  if ((ofEmail?.count ?? 0) < policy.emailCeiling) return 'open';
  return deviceOfAccount && (device?.count ?? 0) < policy.maxFailures ? 'device' : 'new-device';
};

/** RFC 6585 §4 (429) with RFC 9110 §10.2.3 `Retry-After` in delay-seconds, rounded up. */
export const tooManyAttempts = ({ retryAfterMs, detail }: Refusal) => {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new AppError(
    'TOO_MANY_LOGIN_ATTEMPTS',
    `${detail} Try again in ${seconds} ${seconds === 1 ? 'second' : 'seconds'}.`,
    {
      headers: { 'Retry-After': String(seconds) },
    },
  );
};

/** What a failed attempt reached, for the audit lines and the ceiling's metric. */
export interface FailureOutcome {
  /** The failure that reached `maxFailures` for the e-mail from this source. */
  lockedSource: boolean;
  /** The failure that reached `maxFailuresPerSource` for the source. */
  lockedAddress: boolean;
  /** The failure that reached the e-mail's ceiling. */
  reachedCeiling: boolean;
  failures: number;
}

/** One attempt admitted by the throttle: reserved on each counter until the password is verified. */
export interface AdmittedAttempt {
  /** The attempt failed: it stays counted, and the source waits as the policy says. */
  failed(): Promise<FailureOutcome>;
  /** The password was right: the source's failures for the e-mail are forgotten, the others given back. */
  succeeded(): Promise<void>;
}

/** A device token the attempt presents: its id, and whether it is one of the e-mail's account. */
export interface PresentedDevice {
  id: string;
  /** Known once the account is looked up (in parallel with the counters' read). */
  ofAccount: Promise<boolean>;
}

/**
 * The throttle of one login attempt (e-mail, source, clock, and the device token it presents, if
 * any). `admit()` reads the counters (one strongly consistent BatchGetItem), refuses from them what
 * it must, and otherwise reserves the attempt on each with a conditional write (one round trip, in
 * parallel): of any number of parallel attempts at most the limit pass. A refused attempt writes
 * nothing, so it does not extend a window.
 */
export const loginThrottle = (
  db: Database,
  policy: LoginThrottlePolicy,
  {
    email,
    source,
    clock,
    device,
  }: { email: string; source: Source; clock: () => number; device?: PresentedDevice | undefined },
) => {
  const now = clock();
  const fromSourceKey = keys.loginAttemptsFromSource(email, source);
  const ofSourceKey = keys.loginAttemptsOfSource(source);
  const ofEmailKey = keys.loginAttemptsOfEmail(email);
  const newDevicesKey = keys.loginAttemptsOfNewDevices(email);
  const deviceKey = device && keys.loginAttemptsOfDevice(email, device.id);
  type Key = typeof ofEmailKey;

  const admit = async (): Promise<AdmittedAttempt> => {
    const [[fromSource, ofSource, ofEmail, newDevices, deviceCounter], deviceOfAccount] = await Promise.all([
      readAttemptCounters(
        db,
        [fromSourceKey, ofSourceKey, ofEmailKey, newDevicesKey, ...(deviceKey ? [deviceKey] : [])],
        {
          now,
          windowSeconds: [
            policy.windowSeconds,
            policy.windowSeconds,
            policy.windowSeconds,
            NEW_DEVICE_WINDOW_SECONDS,
            policy.windowSeconds,
          ],
        },
      ),
      device?.ofAccount ?? false,
    ]);
    const counters = { fromSource, ofSource, ofEmail, newDevices, device: deviceCounter };
    const { refusal: refused, admission } = judge(counters, policy, now, { deviceOfAccount });
    if (refused) throw tooManyAttempts(refused);
    const reserve = (
      key: Key,
      open: AttemptCounter | undefined,
      {
        limit,
        delay,
        windowSeconds = policy.windowSeconds,
      }: { limit?: number; delay?: ReservationDelay; windowSeconds?: number },
    ) =>
      reserveAttempt(db, key, {
        windowSeconds,
        now,
        windowOpen: open !== undefined,
        seen: open?.count,
        limit,
        delay,
      });
    // The progressive delay is set by the reservation itself, before the password is verified, so
    // parallel guesses cannot slip past it; the failure then starts it again from its answer.
    const progressive = { free: policy.freeFailures, after: (count: number) => delayAfter(count, policy) };
    // Past the ceiling, the attempt also takes one of the minute's new-device attempts, or counts
    // against its device token.
    const gateOf = () => {
      if (admission === 'new-device') {
        return reserve(newDevicesKey, newDevices, {
          limit: policy.newDeviceAttemptsPerMinute,
          windowSeconds: NEW_DEVICE_WINDOW_SECONDS,
        });
      }
      if (admission === 'device')
        return reserve(deviceKey as Key, deviceCounter, { limit: policy.maxFailures });
      return undefined;
    };
    const gateKey = admission === 'new-device' ? newDevicesKey : deviceKey;
    const [pair, address, perEmail, gate] = await settleAll([
      reserve(fromSourceKey, fromSource, { limit: policy.maxFailures, delay: progressive }),
      reserve(ofSourceKey, ofSource, { limit: policy.maxFailuresPerSource }),
      reserve(ofEmailKey, ofEmail, {}),
      gateOf(),
    ]);
    // A given-back reservation keeps the delay it set: another counter refused the attempt, in a race.
    const give = () =>
      settleAll([
        pair.reserved ? releaseAttempt(db, fromSourceKey, pair.counter) : undefined,
        address.reserved ? releaseAttempt(db, ofSourceKey, address.counter) : undefined,
        releaseAttempt(db, ofEmailKey, perEmail.counter),
        gate?.reserved ? releaseAttempt(db, gateKey as Key, gate.counter) : undefined,
      ]);
    // Another attempt took the last one between the read and the reservation: this one is refused,
    // for the reason the counter that refused it gives.
    if (!pair.reserved || !address.reserved || (gate && !gate.reserved)) {
      await give();
      // The gate's counter stands for both: judged with the admission, only its own is read.
      const counted: Counters = {
        fromSource: pair.counter,
        ofSource: address.counter,
        ofEmail: perEmail.counter,
        newDevices: gate?.counter,
        device: gate?.counter,
      };
      throw tooManyAttempts(judge(counted, policy, now, { admission }).refusal as Refusal);
    }
    return {
      async failed() {
        const failures = pair.counter.count;
        const wait = delayAfter(failures, policy);
        // The reservation set the wait from the attempt's start; it runs from the failure's answer:
        // the verification itself takes a good part of a second.
        if (wait > 0) await delayAttempts(db, fromSourceKey, pair.counter, clock() + wait);
        return {
          lockedSource: failures === policy.maxFailures,
          lockedAddress: address.counter.count === policy.maxFailuresPerSource,
          reachedCeiling: perEmail.counter.count === policy.emailCeiling,
          failures,
        };
      },
      async succeeded() {
        // A new device's attempt stays counted: the minute's attempts are attempts, not failures.
        await settleAll([
          clearAttempts(db, fromSourceKey),
          releaseAttempt(db, ofSourceKey, address.counter),
          releaseAttempt(db, ofEmailKey, perEmail.counter),
          admission === 'device' && gate ? releaseAttempt(db, deviceKey as Key, gate.counter) : undefined,
        ]);
      },
    };
  };

  return { admit };
};
