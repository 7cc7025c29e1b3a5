import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, unwrap } from '../api';
import { Empty, PageHeader, QueryView, Time } from '../ui';

/** Customers of the account, searched by reference, name or e-mail as you type. */
export default function CustomersPage() {
  const customers = useQuery({ queryKey: ['customers'], queryFn: () => unwrap(api.GET('/api/v1/monetization/customers')) });
  const [search, setSearch] = useState('');
  const needle = search.trim().toLowerCase();
  return (
    <section>
      <PageHeader title="Customers" />
      <label className="search">
        Search customers
        <input type="search" name="search" placeholder="Reference, name or e-mail" value={search} onChange={(e) => setSearch(e.target.value)} />
      </label>
      <QueryView query={customers} what="customers">
        {(list) => {
          const shown = needle
            ? list.filter((c) =>
                [c.customerReferenceId, c.email, c.firstName, c.lastName].some((v) => v?.toLowerCase().includes(needle)),
              )
            : list;
          if (list.length === 0) return <Empty>No customers yet: they appear when your backend creates them or sends their first event.</Empty>;
          if (shown.length === 0) return <Empty>No customer matches “{search}”.</Empty>;
          return (
            <table aria-label="Customers">
              <thead>
                <tr>
                  <th scope="col">Reference</th>
                  <th scope="col">Name</th>
                  <th scope="col">E-mail</th>
                  <th scope="col">Source</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((c) => (
                  <tr key={c.id}>
                    <td>
                      <Link to={`/customers/${c.id}`}>{c.customerReferenceId}</Link>
                    </td>
                    <td>{[c.firstName, c.lastName].filter(Boolean).join(' ') || '—'}</td>
                    <td>{c.email ?? '—'}</td>
                    <td>{c.source}</td>
                    <td>
                      <Time iso={c.createdAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          );
        }}
      </QueryView>
    </section>
  );
}
