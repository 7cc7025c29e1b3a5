import { useState } from 'react';
import { Field, Form } from '../../components/form';
import { useInviteUser } from '../../queries/users';
import { OPERATOR_ROLES, type OperatorRole } from '../../roles';

export type Invited = { username: string; password: string };

/** Invites an operator with a username and a role; the one-time password comes back once. */
export function InviteForm({ onInvited }: { onInvited: (invited: Invited) => void }) {
  const [username, setUsername] = useState('');
  const [role, setRole] = useState<OperatorRole>('VIEWER');
  const invite = useInviteUser(({ user, password }) => {
    onInvited({ username: user.username, password });
    setUsername('');
  });
  return (
    <Form label="Invite an operator" submission={invite} onSubmit={() => invite.mutate({ username, role })} submit="Invite" pending="Inviting…" failed="Not invited">
      <Field label="Username" name="username">
        <input value={username} required autoComplete="off" onChange={(e) => setUsername(e.target.value)} />
      </Field>
      <Field label="Role" name="role">
        <RoleOptions value={role} onChange={setRole} />
      </Field>
    </Form>
  );
}

/** A select of the four roles. */
export function RoleOptions({ value, onChange, label, disabled }: { value: OperatorRole; onChange: (role: OperatorRole) => void; label?: string; disabled?: boolean }) {
  return (
    <select value={value} aria-label={label} disabled={disabled} onChange={(e) => onChange(e.target.value as OperatorRole)}>
      {OPERATOR_ROLES.map((r) => (
        <option key={r} value={r}>
          {r}
        </option>
      ))}
    </select>
  );
}
