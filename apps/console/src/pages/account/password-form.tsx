import { useState } from 'react';
import { ApiError } from '../../api';
import { useAuth } from '../../auth';
import { Field, Form } from '../../components/form';
import { useChangePassword } from '../../queries/account';

const EMPTY = { currentPassword: '', newPassword: '', repeat: '' };

/** The repeat differs: refused here, under its field, before anything is sent. */
const mismatch = () => new ApiError(400, 'validation_failed', 'The new passwords differ', undefined, [{ field: 'repeat', message: 'does not match the new password' }]);

/**
 * Changes the signed-in operator's password. The server ends every session of the operator, this
 * one included, so the console goes to the login page saying so.
 */
export function PasswordForm() {
  const [form, setForm] = useState(EMPTY);
  const [refused, setRefused] = useState<ApiError | null>(null);
  const { signOut } = useAuth();
  const change = useChangePassword(() => signOut('password-changed'));
  const set = (key: keyof typeof EMPTY) => (e: React.ChangeEvent<HTMLInputElement>) => setForm({ ...form, [key]: e.target.value });
  function submit() {
    setRefused(form.newPassword === form.repeat ? null : mismatch());
    if (form.newPassword === form.repeat) change.mutate({ currentPassword: form.currentPassword, newPassword: form.newPassword });
  }
  return (
    <Form access="read" label="Change password" layout="grid" submission={{ isPending: change.isPending, error: refused ?? change.error }} onSubmit={submit} submit="Change password" pending="Changing…" failed="Password not changed">
      <Field label="Current password" name="currentPassword">
        <input type="password" autoComplete="current-password" required value={form.currentPassword} onChange={set('currentPassword')} />
      </Field>
      <Field label="New password (at least 8 characters)" name="newPassword">
        <input type="password" autoComplete="new-password" required value={form.newPassword} onChange={set('newPassword')} />
      </Field>
      <Field label="Repeat new password" name="repeat">
        <input type="password" autoComplete="new-password" required value={form.repeat} onChange={set('repeat')} />
      </Field>
    </Form>
  );
}
