import { useMutation } from '@tanstack/react-query';
import type { Schemas } from '../../api';
import { openInvoicePdf } from '../../portal-api';
import { InvoicesTable, isOpen } from '../../components/billing-tables';
import { ErrorNote, StatusNote } from '../../components/ui';
import { usePayInvoice } from '../../queries/portal';

/** The customer's invoices, each with its PDF document; an open one opens a hosted payment page. */
export function PortalInvoices({ invoices }: { invoices: Schemas['Invoice'][] }) {
  const pay = usePayInvoice();
  const pdf = useMutation({ mutationFn: openInvoicePdf });
  return (
    <>
      <ErrorNote error={pay.error} title="No payment page" />
      <ErrorNote error={pdf.error} title="No invoice document" />
      {pay.data ? (
        <StatusNote className="notice">
          <a href={pay.data.url}>Open the payment page</a>
        </StatusNote>
      ) : null}
      <InvoicesTable
        invoices={invoices}
        action={(i) => (
          <>
            <button type="button" className="secondary" disabled={pdf.isPending} onClick={() => pdf.mutate(i.id)} aria-label={`PDF of invoice ${i.id}`}>
              PDF
            </button>{' '}
            {isOpen(i) ? (
              <button type="button" className="secondary" disabled={pay.isPending} onClick={() => pay.mutate(i.subscriptionId)}>
                Pay
              </button>
            ) : null}
          </>
        )}
      />
    </>
  );
}
