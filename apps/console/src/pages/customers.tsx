import { useState } from 'react';
import { Link } from 'react-router';
import type { Schemas } from '../api';
import { DataTable, type Column } from '../components/data-table';
import { Time } from '../components/figures';
import { EmptyState, PageHeader, StatusNote } from '../components/ui';
import { useCustomers } from '../queries/customers';
import { paths } from '../routes';
import { NewCustomerForm } from './customer/customer-form';

type Customer = Schemas['AdminCustomer'];

const COLUMNS: Column<Customer>[] = [
  { header: 'Reference', cell: (c) => <Link to={paths.customer(c.id)}>{c.customerReferenceId}</Link> },
  { header: 'Name', cell: (c) => [c.firstName, c.lastName].filter(Boolean).join(' ') || '—' },
  { header: 'E-mail', cell: (c) => c.email ?? '—' },
  { header: 'Source', cell: (c) => c.source },
  { header: 'Created', cell: (c) => <Time iso={c.createdAt} /> },
];

const matches = (c: Customer, needle: string) => [c.customerReferenceId, c.email, c.firstName, c.lastName].some((v) => v?.toLowerCase().includes(needle));

/** Customers of the account, searched by reference, name or e-mail as you type; a new one is created here. */
export default function CustomersPage() {
  const customers = useCustomers();
  const [search, setSearch] = useState('');
  const [created, setCreated] = useState<string | null>(null);
  const needle = search.trim().toLowerCase();
  const list = customers.data;
  return (
    <section>
      <PageHeader title="Customers" />
      <h2>New customer</h2>
      <NewCustomerForm onCreated={setCreated} />
      {created ? <StatusNote>Customer {created} created.</StatusNote> : null}
      <label className="search">
        Search customers
        <input type="search" name="search" placeholder="Reference, name or e-mail" value={search} onChange={(e) => setSearch(e.target.value)} />
      </label>
      {list?.length === 0 ? (
        <EmptyState>No customers yet: create one with the form above; they also appear when your backend creates them or sends their first event.</EmptyState>
      ) : (
        <DataTable
          label="Customers"
          query={customers}
          columns={COLUMNS}
          rows={needle ? list?.filter((c) => matches(c, needle)) : list}
          rowKey={(c) => c.id}
          empty={<>No customer matches “{search}”.</>}
        />
      )}
    </section>
  );
}
