import { useState } from 'react';
import { DataTable, type Column } from '../../components/data-table';
import { Time } from '../../components/figures';
import { ErrorNote, PageHeader, SecretOnce, StatusBadge } from '../../components/ui';
import { useUsers, type Operator } from '../../queries/users';
import { InviteForm, RoleOptions, type Invited } from './invite-form';
import { useUserActions } from './user-actions';

/** The account's operators (owner only): invite one with a role, change a role, disable or enable one. */
export default function UsersPage() {
  const users = useUsers();
  const [invited, setInvited] = useState<Invited | null>(null);
  const { update, dialog, changeRole, toggle } = useUserActions();
  const columns: Column<Operator>[] = [
    { header: 'Username', cell: (u) => u.username },
    { header: 'Role', cell: (u) => <RoleOptions label={`Role of ${u.username}`} value={u.role} disabled={update.isPending} onChange={(role) => changeRole(u, role)} /> },
    { header: 'State', cell: (u) => <StatusBadge status={u.disabled ? 'DISABLED' : 'ACTIVE'} /> },
    { header: 'Created', cell: (u) => <Time iso={u.createdAt} /> },
    {
      header: 'Actions',
      hiddenHeader: true,
      cell: (u) => (
        <button type="button" className="secondary" aria-label={`${u.disabled ? 'Enable' : 'Disable'} ${u.username}`} disabled={update.isPending} onClick={() => toggle(u)}>
          {u.disabled ? 'Enable' : 'Disable'}
        </button>
      ),
    },
  ];
  return (
    <section>
      <PageHeader title="Users" />
      <p className="muted">
        OWNER: everything, users and keys. ADMIN: everything but users. BILLING: customers, subscriptions, invoices, credits, portal links. VIEWER: read only.
      </p>
      <InviteForm onInvited={setInvited} />
      {invited ? <SecretOnce label={`One-time password for ${invited.username}`} value={invited.password} onDismiss={() => setInvited(null)} /> : null}
      <ErrorNote error={update.error} title="User not changed" />
      <DataTable label="Users" query={users} columns={columns} rows={users.data} rowKey={(u) => u.id} empty="No operators yet: invite one with the form above." />
      {dialog}
    </section>
  );
}
