import type { Schemas } from '../../api';
import { InvoicesTable, isOpen } from '../../components/billing-tables';
import { ErrorNote, StatusNote } from '../../components/ui';
import { usePayInvoice } from '../../queries/portal';

/** The customer's invoices; an open one opens a hosted payment page. */
export function PortalInvoices({ invoices }: { invoices: Schemas['Invoice'][] }) {
  const pay = usePayInvoice();
  return (
    <>
      <ErrorNote error={pay.error} title="No payment page" />
      {pay.data ? (
        <StatusNote className="notice">
          <a href={pay.data.url}>Open the payment page</a>
        </StatusNote>
      ) : null}
      <InvoicesTable
        invoices={invoices}
        action={(i) =>
          isOpen(i) ? (
            <button type="button" className="secondary" disabled={pay.isPending} onClick={() => pay.mutate(i.subscriptionId)}>
              Pay
            </button>
          ) : null
        }
      />
    </>
  );
}
