/**
 * Benchmark: one forecast with a year (365 days) of daily history and a
 * 366-day forecast horizon (the leap year 2028), plus a few scheduled balance
 * changes. Warms up, then times many calls and reports mean and p99 per call
 * against the 20 ms target.
 *
 * Run: npm run bench -w @tally/forecast
 */
import { performance } from 'node:perf_hooks';

import { forecastCreditUsage, type ForecastInput } from '../src/index.js';

const TARGET_MS = 20;
const WARMUP_CALLS = 200;
const TIMED_CALLS = 2_000;

const DAY_MS = 86_400_000;
const dateAt = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);
const dayOf = (date: string): number => Date.parse(`${date}T00:00:00Z`) / DAY_MS;

/** Deterministic usage figures with up to 12 fractional digits (no Math.random). */
function usage(i: number): string {
  const whole = (i * 7919) % 97;
  const fraction = String((i * 104_729) % 1_000_000_000_000).padStart(12, '0').replace(/0+$/, '');
  return fraction === '' ? String(whole) : `${whole}.${fraction}`;
}

function benchInput(): ForecastInput {
  const start = dayOf('2027-01-01');
  const asOf = dayOf('2028-01-01'); // 365 observed days
  const end = dayOf('2029-01-01'); // 366 forecast days
  return {
    schemaVersion: '1.0',
    methodologyVersion: '1.0',
    asOf: dateAt(asOf),
    period: { startDate: dateAt(start), endDate: dateAt(end), allocation: '40000', lowBalanceThreshold: '1500' },
    lookbackDays: 30,
    dailyUsage: Array.from({ length: asOf - start }, (_, i) => ({ date: dateAt(start + i), creditsUsed: usage(i) })),
    balance: {
      current: '12345.678901234567',
      schedule: [
        { date: '2028-02-29', creditDelta: '5000', reason: 'monthly grant' },
        { date: '2028-06-30', creditDelta: '-250.5', reason: 'expiration' },
        { date: '2028-06-30', creditDelta: '7500.25' },
        { date: '2028-12-01', creditDelta: '1000' },
      ],
    },
    scenarios: [
      { key: 'low', burnMultiplier: '0.75' },
      { key: 'base', burnMultiplier: '1' },
      { key: 'high', burnMultiplier: '1.333333333333' },
    ],
  };
}

const input = benchInput();
const sample = forecastCreditUsage(input);
if (sample.observedPoints.length !== 365 || sample.daysRemaining !== 366) {
  throw new Error(`unexpected bench shape: ${sample.observedPoints.length} observed, ${sample.daysRemaining} remaining`);
}

for (let i = 0; i < WARMUP_CALLS; i++) forecastCreditUsage(input);

const samples: number[] = [];
for (let i = 0; i < TIMED_CALLS; i++) {
  const started = performance.now();
  forecastCreditUsage(input);
  samples.push(performance.now() - started);
}
samples.sort((a, b) => a - b);
const mean = samples.reduce((acc, ms) => acc + ms, 0) / samples.length;
const p99 = samples[Math.min(samples.length - 1, Math.ceil(samples.length * 0.99) - 1)] ?? Number.NaN;

const fmt = (ms: number): string => ms.toFixed(3);
console.log(`forecastCreditUsage: 365 observed days, 366 forecast days, 3 scenarios`);
console.log(`calls: ${WARMUP_CALLS} warm-up + ${TIMED_CALLS} timed`);
console.log(`mean: ${fmt(mean)} ms/call`);
console.log(`p99:  ${fmt(p99)} ms/call`);
console.log(`target: < ${TARGET_MS} ms/call`);
console.log(`ratio (mean/target): ${(mean / TARGET_MS).toFixed(4)}`);
console.log(`ratio (p99/target):  ${(p99 / TARGET_MS).toFixed(4)}`);
if (p99 >= TARGET_MS) process.exitCode = 1;
