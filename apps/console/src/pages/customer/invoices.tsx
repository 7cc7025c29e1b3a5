import type { Schemas } from '../../api';
import { InvoicesTable, isOpen } from '../../components/billing-tables';
import { useConfirm } from '../../components/confirm-dialog';
import { Money, Time } from '../../components/figures';
import { ErrorNote } from '../../components/ui';
import { useMarkInvoicePaid } from '../../queries/billing';

type Invoice = Schemas['Invoice'];

/** The customer's invoices; an open one can be marked paid (after a confirmation: it settles money). */
export function CustomerInvoices({ invoices, customerId }: { invoices: Invoice[]; customerId: string }) {
  const markPaid = useMarkInvoicePaid(customerId);
  const { ask, dialog } = useConfirm();
  const action = (i: Invoice) => (
    <span className="row-actions">
      {/* The console session's cookie authenticates the GET (ADR 0034); the PDF opens in a new tab. */}
      <a href={`/api/v1/monetization/billing/invoices/${i.id}/pdf`} target="_blank" rel="noopener noreferrer">
        PDF
      </a>{' '}
      {settle(i)}
    </span>
  );
  const settle = (i: Invoice) => {
    if (isOpen(i)) {
      const confirm = () =>
        ask({
          title: 'Mark this invoice paid?',
          body: (
            <>
              <Money amount={i.amount} currency={i.currency} /> is recorded as received outside the processor; the subscription it bills goes on.
            </>
          ),
          confirm: 'Mark paid',
          onConfirm: () => markPaid.mutate(i.id),
        });
      return (
        <button type="button" className="secondary" disabled={markPaid.isPending} onClick={confirm}>
          Mark paid
        </button>
      );
    }
    return i.paidAt ? (
      <span className="muted small">
        paid <Time iso={i.paidAt} />
      </span>
    ) : null;
  };
  return (
    <>
      <ErrorNote error={markPaid.error} title="Not marked paid" />
      <InvoicesTable invoices={invoices} showType action={action} />
      {dialog}
    </>
  );
}
