import type { AppContext } from '../../platform/context.js';
import type { Job } from '../../platform/jobs/scheduler.js';
import {
  changeAtProcessor,
  checkSubscribePayment,
  checkUpgradePayment,
  collectInitialPayment,
  collectUpgradePayment,
  processorDrivesSubscription,
  subscribeThroughProcessor,
  voidUpgradePayment,
} from '../billing/index.js';
import * as processorChanges from './processor/changes.js';
import { subscribeThroughProcessor as processorSubscribe } from './processor/subscribe.js';
import { usageRecorded, usageRecordedWanted } from '../usage/index.js';
import { autoTopupSpendCapSql, chargeAutoTopup } from '../credits/index.js';
import { agentMaxTopupAmountSql } from '../settings/index.js';
import { chargeAutoTopupAttempt, recoverAutoTopups } from './auto-topup/charge.js';
import { runCheckoutExpiry } from './checkout-expiry.js';
import { sweepSpendReservations } from './key-spend-sweep.js';
import { queueMeterEvent, runMeterSync } from './meters.js';
import { runProcessorRetry } from './processor/retry.js';
import { processorDrivenSql } from './repo.js';
import * as subscribe from './subscribe.js';
import * as upgrade from './upgrade.js';

/** How payments joins billing and usage (called once at startup by runtime.ts): it collects paid subscribes and queues meter events. */
export function registerHooks(): void {
  checkSubscribePayment.provide(subscribe.checkSubscribePayment);
  collectInitialPayment.provide(subscribe.collectInitialPayment);
  subscribeThroughProcessor.provide(processorSubscribe);
  processorDrivesSubscription.provide(processorChanges.processorDrivesSubscription);
  changeAtProcessor.provide(processorChanges.changeAtProcessor);
  // Paid upgrades (api-contract-agent-v2.md §4.8): the spend cap, the charge or hosted page, the void.
  checkUpgradePayment.provide(upgrade.checkUpgradePayment);
  collectUpgradePayment.provide(upgrade.collectUpgradePayment);
  voidUpgradePayment.provide(upgrade.voidUpgradePayment);
  usageRecorded.on('payments.meter_outbox', queueMeterEvent);
  // Only processor-driven accounts send usage to meters; the others keep one-statement ingestion.
  usageRecordedWanted.provide(processorDrivenSql);
  // Auto top-up: the draw records the attempt (credits); the charge after commit is ours.
  chargeAutoTopup.provide(chargeAutoTopupAttempt);
  autoTopupSpendCapSql.provide(agentMaxTopupAmountSql);
}

/**
 * Once per slot across nodes: every 5 minutes `stripe-processor-retry` (processor customers and plan
 * sync a request could not finish), `stripe-meter-sync` (the meter outbox) and
 * `spend-reservation-sweep`; hourly `checkout-expiry`; every minute `auto-topup-recovery`.
 */
export function jobs(ctx: AppContext): Job[] {
  return [
    // The retry first: a processor customer it links lets the meter sync send that customer's events.
    { name: 'stripe-processor-retry', cron: '*/5 * * * *', run: () => runProcessorRetry(ctx) },
    { name: 'stripe-meter-sync', cron: '*/5 * * * *', run: () => runMeterSync(ctx) },
    // Key-budget and mandate reservations a crash left PENDING for 15 minutes (api-contract-agent-v2.md §2.6, §7).
    { name: 'spend-reservation-sweep', cron: '*/5 * * * *', run: (job) => sweepSpendReservations(ctx, job) },
    // Hourly: PENDING checkouts past the processor's expiry whose checkout.session.expired was missed (§7).
    { name: 'checkout-expiry', cron: '10 * * * *', run: (job) => runCheckoutExpiry(ctx, job) },
    // Every minute: auto top-up attempts a crash or an unreachable processor left PENDING (money §2.4).
    { name: 'auto-topup-recovery', cron: '15 * * * * *', run: ({ now }) => recoverAutoTopups(ctx, now) },
  ];
}
