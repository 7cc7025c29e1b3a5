import type { AppContext } from '../../platform/context.js';
import type { Job } from '../../platform/jobs/scheduler.js';
import { changeAtProcessor, checkSubscribePayment, collectInitialPayment, processorDrivesSubscription, subscribeThroughProcessor } from '../billing/index.js';
import * as processorChanges from './processor/changes.js';
import { subscribeThroughProcessor as processorSubscribe } from './processor/subscribe.js';
import { usageRecorded, usageRecordedWanted } from '../usage/index.js';
import { queueMeterEvent, runMeterSync } from './meters.js';
import { runProcessorRetry } from './processor/retry.js';
import { processorDrivenSql } from './repo.js';
import * as subscribe from './subscribe.js';

/** How payments joins billing and usage (called once at startup by runtime.ts): it collects paid subscribes and queues meter events. */
export function registerHooks(): void {
  checkSubscribePayment.provide(subscribe.checkSubscribePayment);
  collectInitialPayment.provide(subscribe.collectInitialPayment);
  subscribeThroughProcessor.provide(processorSubscribe);
  processorDrivesSubscription.provide(processorChanges.processorDrivesSubscription);
  changeAtProcessor.provide(processorChanges.changeAtProcessor);
  usageRecorded.on('payments.meter_outbox', queueMeterEvent);
  // Only processor-driven accounts send usage to meters; the others keep one-statement ingestion.
  usageRecordedWanted.provide(processorDrivenSql);
}

/**
 * Every 5 minutes, once per slot across nodes: `stripe-processor-retry` (processor customers and
 * plan sync a request could not finish) and `stripe-meter-sync` (the meter outbox).
 */
export function jobs(ctx: AppContext): Job[] {
  return [
    // The retry first: a processor customer it links lets the meter sync send that customer's events.
    { name: 'stripe-processor-retry', cron: '*/5 * * * *', run: () => runProcessorRetry(ctx) },
    { name: 'stripe-meter-sync', cron: '*/5 * * * *', run: () => runMeterSync(ctx) },
  ];
}
