import { useState } from 'react';
import { ApiError, type Schemas } from '../../api';
import { Credits, Money, UnitPrice } from '../../components/figures';
import { Field, Form } from '../../components/form';
import { StatusNote } from '../../components/ui';
import { usePurchaseCredits, type Purchase } from '../../queries/portal';

type Offer = Schemas['OwnPortalSession']['topUpPools'][number];

/**
 * A credit top-up through the payments flow: charged off-session to the saved card, or a hosted
 * checkout to complete. Offered only for the pools the service says a top-up can go through (a
 * price published for the pool's denomination, a processor connected); the account's spend cap is
 * the server's to check.
 */
export function TopUp({ offers, pools, operator }: { offers: Offer[]; pools: Schemas['CreditPool'][]; operator: string | null }) {
  const offered = offers.flatMap((o) => {
    const pool = pools.find((p) => p.id === o.poolId);
    return pool ? [{ ...o, name: pool.name }] : [];
  });
  const [chosen, setPoolId] = useState<string | undefined>();
  const [credits, setCredits] = useState('');
  const purchase = usePurchaseCredits(() => setCredits(''));
  const poolId = chosen ?? offered[0]?.poolId;
  if (offered.length === 0 || poolId === undefined) return null;
  const offer = offered.find((o) => o.poolId === poolId) ?? offered[0]!;
  const price = (
    <span className="muted" data-testid="top-up-price">
      <UnitPrice amount={offer.pricePerCredit} currency={offer.currency} /> per credit
    </span>
  );
  return (
    <>
      <h2>Top up</h2>
      <Form
        label="Top up"
        submission={{ ...purchase, error: customerTopUpError(purchase.error, operator) }}
        onSubmit={() => purchase.mutate({ creditPoolId: offer.poolId, credits: credits.trim() })}
        submit="Buy credits"
        pending="Buying…"
        failed="Not bought"
        after={price}
      >
        <Field label="Pool">
          <select value={offer.poolId} onChange={(e) => setPoolId(e.target.value)}>
            {offered.map((o) => (
              <option key={o.poolId} value={o.poolId}>
                {o.name} ({o.denomination})
              </option>
            ))}
          </select>
        </Field>
        <Field label="Credits">
          <input inputMode="decimal" required value={credits} onChange={(e) => setCredits(e.target.value)} />
        </Field>
      </Form>
      <PurchaseResult result={purchase.data} />
    </>
  );
}

function PurchaseResult({ result }: { result: Purchase | undefined }) {
  if (result?.completed) {
    return (
      <StatusNote className="notice">
        Bought <Credits amount={result.credits} /> credits for <Money amount={result.amountCharged} currency={result.currency} />.
      </StatusNote>
    );
  }
  if (!result?.checkoutUrl) return null;
  return (
    <StatusNote className="notice">
      <Money amount={result.amountCharged} currency={result.currency} /> to pay: <a href={result.checkoutUrl}>complete the payment on the checkout page</a>
      {result.declineReason ? ` (${result.declineReason})` : ''}.
    </StatusNote>
  );
}

/**
 * What the customer reads when a top-up fails. The service words its refusals for the operator or
 * its developers ("…the operator must publish a price book entry…", "…hand checkoutUrl to your
 * principal…"), so only the ones about the amount the customer typed are passed on; any other
 * refusal says whom to contact, with the requestId for them.
 */
function customerTopUpError(error: unknown, operator: string | null): Error | null {
  if (!error) return null;
  const contact = operator?.trim() || 'the seller';
  if (!(error instanceof ApiError)) return new Error(`The top-up did not go through; try again later or contact ${contact}.`);
  const aboutTheAmount = error.fields.some((f) => f.field === 'credits') || /payment minimum|too large for the payment processor/.test(error.message);
  if (aboutTheAmount) return error;
  const message =
    error.code === 'spend_cap_exceeded'
      ? `This top-up is larger than one purchase may be; buy fewer credits at once or contact ${contact}.`
      : error.status >= 500 || error.status === 0
        ? `The top-up did not go through; try again later or contact ${contact}.`
        : `Top-ups are not available yet; contact ${contact}.`;
  return new ApiError(error.status, error.code, message, error.requestId);
}

