import { openMandateCheckout } from '../../payments/index.js';
import type { MandateOpener } from '../signup/service.js';
import { mandateAvailable } from './domain.js';

/**
 * Opens a mandate page (§4.6) through payments (Stripe Checkout `mode=setup`, purpose
 * SPEND_MANDATE): `unavailable` when the account has the mandate off or no ceiling, no processor is
 * connected, or the processor refused the page. The request was checked before.
 */
export const openMandatePage: MandateOpener = async (ctx, input) => {
  if (!mandateAvailable(input.settings)) return { status: 'unavailable', setup_url: null };
  const page = await openMandateCheckout(ctx, {
    accountId: input.accountId,
    customerId: input.customerId,
    keyId: input.keyId,
    amount: input.mandate.maxAmount,
    currency: input.mandate.currency,
    period: input.mandate.period,
    baseUrl: input.baseUrl,
  });
  return page.status === 'pending' ? { status: 'pending', setup_url: page.setupUrl } : { status: 'unavailable', setup_url: null };
};
