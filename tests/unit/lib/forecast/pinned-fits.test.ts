import { describe, expect, it } from 'vitest';
import { type Method, MODELS } from '../../../../lib/forecast/models';

/**
 * Every model's forecast, 5 periods ahead, pinned to 10 significant digits on three fixed histories:
 * a noisy quarterly trend with seasons, a level series without seasons, and a quarterly history too
 * short for a seasonal ETS (fewer than two cycles and two periods). The fits are deterministic, so
 * any change to a model, its initial states, its parameter search or its variance moves a figure;
 * the accuracy that justifies the figures is the bench's (`npm run bench -- --forecast`).
 */
const noisy = Array.from(
  { length: 40 },
  (_, t) => 50 + 0.8 * t + 6 * Math.sin((2 * Math.PI * t) / 4) + (((t * 7919) % 11) - 5),
);
const level = Array.from({ length: 20 }, (_, t) => 30 + (((t * 31) % 7) - 3));
const histories: Record<string, [number[], number]> = {
  noisy: [noisy, 4],
  level: [level, 1],
  short: [noisy.slice(0, 9), 4],
};

/** [mean, sd] of each step, on the model's scale (logs for ets_log). */
const PINNED: Record<string, Record<Method, [number, number][]>> = {
  noisy: {
    naive: [
      [75.2, 6.932568991],
      [75.2, 9.80413309],
      [75.2, 12.00756172],
      [75.2, 13.86513798],
      [75.2, 15.50169552],
    ],
    drift: [
      [75.97435897, 6.976949668],
      [76.74871795, 9.989471691],
      [77.52307692, 12.38285726],
      [78.2974359, 14.46771076],
      [79.07179487, 16.36239734],
    ],
    seasonal_naive: [
      [81.8, 6.162701428],
      [87.6, 6.162701428],
      [81.4, 6.162701428],
      [75.2, 6.162701428],
      [81.8, 8.71537594],
    ],
    ets: [
      [80.68792444, 4.193514624],
      [86.17575096, 4.706606244],
      [82.35600749, 5.169015358],
      [76.07620979, 5.593326131],
      [81.49791448, 6.753941933],
    ],
    ets_log: [
      [4.394947133, 0.06924544452],
      [4.463371171, 0.07389603439],
      [4.419405252, 0.07827078772],
      [4.338858234, 0.08241364281],
      [4.411609154, 0.1020086157],
    ],
  },
  level: {
    naive: [
      [28, 3.456496553],
      [28, 4.888224304],
      [28, 5.986827646],
      [28, 6.912993106],
      [28, 7.728961257],
    ],
    drift: [
      [28.05263158, 3.545879497],
      [28.10526316, 5.138467569],
      [28.15789474, 6.441409989],
      [28.21052632, 7.605064265],
      [28.26315789, 8.685595457],
    ],
    seasonal_naive: [
      [28, 3.456496553],
      [28, 4.888224304],
      [28, 5.986827646],
      [28, 6.912993106],
      [28, 7.728961257],
    ],
    ets: [
      [29.88963852, 2.61960704],
      [29.84780139, 2.761250437],
      [29.81433169, 2.933617632],
      [29.78755592, 3.127817172],
      [29.76613531, 3.336099516],
    ],
    ets_log: [
      [3.394890486, 0.08824012475],
      [3.393388648, 0.09359039069],
      [3.392187178, 0.100013454],
      [3.391226002, 0.1071758532],
      [3.390457061, 0.1147966954],
    ],
  },
  short: {
    naive: [
      [54.4, 8.192374503],
      [54.4, 11.58576713],
      [54.4, 14.18960887],
      [54.4, 16.38474901],
      [54.4, 18.31870629],
    ],
    drift: [
      [55.575, 8.599486722],
      [56.75, 12.81935792],
      [57.925, 16.4667634],
      [59.1, 19.85966389],
      [60.275, 23.11042615],
    ],
    seasonal_naive: [
      [61, 4.617358552],
      [54.8, 4.617358552],
      [48.6, 4.617358552],
      [54.4, 4.617358552],
      [61, 6.529931087],
    ],
    ets: [
      [55.22411408, 8.272506721],
      [55.8838369, 12.25351557],
      [56.41161515, 15.5995819],
      [56.83383775, 18.60849156],
      [57.17161583, 21.38544666],
    ],
    ets_log: [
      [4.012049717, 0.1533027416],
      [4.024606621, 0.2273404064],
      [4.034652145, 0.289689364],
      [4.042688563, 0.3458262171],
      [4.049117698, 0.3976792527],
    ],
  },
};

const close = (actual: number, expected: number) =>
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(expected)));

describe('the candidate models, pinned', () => {
  for (const [name, [values, seasonLength]] of Object.entries(histories))
    for (const { method, forecast } of MODELS)
      it(`${method} on the ${name} history`, () => {
        const expected = PINNED[name]?.[method] as [number, number][];
        const predictive = forecast(values, seasonLength, 5) ?? [];
        expect(predictive).toHaveLength(5);
        predictive.forEach((p, i) => {
          const [mean, sd] = expected[i] as [number, number];
          close(p.mean, mean);
          close(p.sd, sd);
          expect(p.log).toBe(method === 'ets_log');
        });
      });
});
